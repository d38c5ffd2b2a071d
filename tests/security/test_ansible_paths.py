"""Issue 32: the Ansible role (dist/ansible/roles/kdrift) writes only where it means to.

1. A host's snapshot is fetched to kdrift_fleet_dir/<inventory_hostname>.json.gz: an inventory
   name such as ../../../x put it outside the fleet directory, and the play reported success.
   The role now fails that host, before it captures anything, and writes nothing outside the
   fleet directory; the other hosts go on.
2. The probe lock was /run/lock/kdrift-probe.lock, created by flock(1) as root in a directory
   every user can write: a symlink another user planted there made root create the file it
   points to, and a lock another user held blocked every probe. The lock now lives in
   /run/kdrift, root's, mode 0700: neither has any effect. A lock directory that is a symlink
   or another user's fails the host.

The hosts are this machine (ansible_connection=local), capturing a fixture sysroot or probing a
directory of the test's own. Skipped without ansible-playbook or root.
"""

import fcntl
import json
import os
import shutil
import signal
import stat
import subprocess

import hostile

NOBODY = 65534
OLD_LOCK = "/run/lock/kdrift-probe.lock"
LOCK_DIR = "/run/kdrift"
PLAYBOOKS = os.path.join(hostile.SOURCE_DIR, "dist", "ansible")
CALLBACKS = os.path.join(hostile.SOURCE_DIR, "tests", "ansible", "callback_plugins")
FIXTURE = os.path.join(hostile.SOURCE_DIR, "tests", "fixtures", "sysroots", "poll-queues-2.tar.gz")
TINY_PROFILE = """description = "test_ansible_paths: one short job"
size = "16m"
ramp = "100ms"
runtime = "500ms"

[[workload]]
name = "randread"
engines = ["psync"]
rw = "randread"
bs = "4k"
iodepth = 1
"""


class AnsibleRole(hostile.Case):
    def setUp(self):
        super().setUp()
        if shutil.which("ansible-playbook") is None:
            self.skipTest("ansible-playbook is not installed (scripts/setup installs it)")
        self.require_root("the role captures as root and the attacker is nobody (uid 65534)")
        os.chmod(self.work, 0o755)
        self.fleet_dir = self.path("controller", "a", "b", "fleet")
        with open(self.path("ansible.cfg"), "w") as f:
            f.write("[defaults]\nhome = %s\nlocal_tmp = %s\nremote_tmp = %s\n"
                    "retry_files_enabled = false\nnocolor = true\ncallback_plugins = %s\n"
                    "callbacks_enabled = fleet_test_json\ninterpreter_python = /usr/bin/python3\n"
                    % (self.path("ansible-home"), self.path("ansible-home", "tmp"),
                       self.path("remote-tmp"), CALLBACKS))

    def inventory(self, hosts):
        """hosts: {inventory name: extra vars}; each a local host with its own snapshot dir."""
        entries = {}
        for index, (name, extra) in enumerate(hosts.items()):
            entries[name] = dict({"ansible_connection": "local",
                                  "kdrift_capture_root": FIXTURE,
                                  "kdrift_snapshot_dir": self.path("hosts", str(index))}, **extra)
        document = {"all": {"vars": {"kdrift_install": False, "kdrift_bin": hostile.KDRIFT,
                                     "kdrift_fleet_dir": self.fleet_dir},
                            "children": {"kdrift": {"hosts": entries}}}}
        path = self.path("inventory.yml")
        with open(path, "w") as f:
            json.dump(document, f)  # YAML is a superset of JSON
        return path

    def play(self, hosts, *extra):
        """capture.yml over hosts: its exit status and per-host task results."""
        results = self.path("results.json")
        env = dict(os.environ, ANSIBLE_CONFIG=self.path("ansible.cfg"), FLEET_TEST_JSON=results,
                   ANSIBLE_NOCOLOR="1")
        done = subprocess.run(["ansible-playbook", "-i", self.inventory(hosts),
                               os.path.join(PLAYBOOKS, "capture.yml")] + list(extra),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                              timeout=300)
        with open(results) as f:
            return done.returncode, json.load(f), done.stdout.decode("utf-8", "replace")

    def failure(self, results, host):
        """The name and message of the task that failed host, or None."""
        for play in results["plays"]:
            for task in play["tasks"]:
                outcome = task["hosts"].get(host, {})
                if outcome.get("failed"):
                    return task["task"]["name"], outcome.get("msg", "")
        return None

    def files_below(self, top):
        found = []
        for directory, _, files in os.walk(top):
            found += [os.path.join(directory, name) for name in files]
        return sorted(found)


class InventoryNames(AnsibleRole):
    def test_a_name_with_dot_dot_fails_its_host_and_writes_nothing_outside_the_fleet(self):
        status, results, output = self.play({"../../../x": {}, "db-1": {}})
        self.assertNotEqual(status, 0, "the play succeeded:\n" + output[-3000:])
        failed = self.failure(results, "../../../x")
        self.assertIsNotNone(failed, output[-3000:])
        self.assertEqual(failed[0], "Refuse an inventory name that is not one safe file name")
        self.assertIn('"../../../x"', failed[1])
        self.assertIsNone(self.failure(results, "db-1"), output[-3000:])
        self.assertEqual(self.files_below(self.path("controller")),
                         [os.path.join(self.fleet_dir, "db-1.json.gz")])
        self.assertFalse(os.path.exists(self.path("hosts", "0")), "the refused host was captured")

    def test_other_unsafe_names_fail_only_their_host(self):
        names = ["..", "-rf", ".hidden", "a b", "tab\there"]
        status, results, output = self.play(dict({name: {} for name in names}, **{"db-2": {}}))
        self.assertNotEqual(status, 0, output[-3000:])
        for name in names:
            with self.subTest(name=name):
                failed = self.failure(results, name)
                self.assertIsNotNone(failed, output[-3000:])
                self.assertEqual(failed[0], "Refuse an inventory name that is not one safe file name")
        self.assertEqual(self.files_below(self.path("controller")),
                         [os.path.join(self.fleet_dir, "db-2.json.gz")])


class ProbeLock(AnsibleRole):
    """A probe on this machine against a directory of the test's, with the role's default lock."""

    def setUp(self):
        super().setUp()
        if os.path.lexists(OLD_LOCK):
            status = os.lstat(OLD_LOCK)
            if not (stat.S_ISREG(status.st_mode) and status.st_uid == 0 and status.st_size == 0):
                self.skipTest(OLD_LOCK + " exists already, not as the old role's lock file: the "
                              "attack needs to plant it")
            os.unlink(OLD_LOCK)  # left by the old role (or this test against it)
        # The old role takes the lock there: nothing of this test's stays behind.
        self.addCleanup(lambda: os.path.lexists(OLD_LOCK) and os.unlink(OLD_LOCK))
        with open(self.path("tiny.toml"), "w") as f:
            f.write(TINY_PROFILE)
        os.makedirs(self.path("probe-target"))

    def probe(self, *extra):
        return self.play({"db-1": {}}, "-e", "kdrift_capture_root=",
                         "-e", "kdrift_probe=" + self.path("tiny.toml"),
                         "-e", "kdrift_probe_target=" + self.path("probe-target"),
                         "-e", "kdrift_probe_rounds=1", "-e", "kdrift_probe_trace=false",
                         "-e", "kdrift_probe_lock_timeout=2", *extra)

    def as_nobody(self, action):
        """Runs action() in a child process as nobody; returns its pid."""
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                os.setgid(NOBODY)
                os.setuid(NOBODY)
                action()
                code = 0
            finally:
                os._exit(code)
        return pid

    def plant(self, action):
        """The attacker's file at the old lock path, removed afterwards."""
        _, status = os.waitpid(self.as_nobody(action), 0)
        self.assertEqual(status, 0)

    def assertLockDirectoryIsRoots(self):
        status = os.lstat(LOCK_DIR)
        self.assertTrue(os.path.isdir(LOCK_DIR) and not os.path.islink(LOCK_DIR))
        self.assertEqual((status.st_uid, status.st_mode & 0o7777), (0, 0o700))

    def test_a_symlink_planted_at_the_old_lock_path_has_no_effect(self):
        victim = self.path("created-by-root")
        self.plant(lambda: os.symlink(victim, OLD_LOCK))
        status, results, output = self.probe()
        self.assertEqual(status, 0, output[-3000:])
        self.assertFalse(os.path.lexists(victim), "root created the file nobody's symlink names")
        self.assertEqual(os.readlink(OLD_LOCK), victim)
        self.assertLockDirectoryIsRoots()
        self.assertTrue(os.path.exists(os.path.join(LOCK_DIR, "probe.lock")))

    def test_a_lock_held_by_another_user_blocks_nothing(self):
        read_end, write_end = os.pipe()

        def hold():
            with open(OLD_LOCK, "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                os.write(write_end, b"x")
                signal.pause()

        holder = self.as_nobody(hold)
        self.addCleanup(lambda: (os.kill(holder, signal.SIGKILL), os.waitpid(holder, 0)))
        self.assertEqual(os.read(read_end, 1), b"x")
        status, results, output = self.probe()
        self.assertEqual(status, 0, output[-3000:])
        self.assertLockDirectoryIsRoots()

    def test_a_lock_directory_that_is_a_symlink_or_another_users_fails_the_host(self):
        os.makedirs(self.path("elsewhere"))
        os.symlink(self.path("elsewhere"), self.path("lock-link"))
        theirs = self.path("theirs")
        os.makedirs(theirs)
        os.chown(theirs, NOBODY, NOBODY)
        for lock_dir, what in ((self.path("lock-link"), "a symlink"),
                               (theirs, "owned by uid 65534")):
            with self.subTest(lock_dir=lock_dir):
                status, results, output = self.probe("-e", "kdrift_probe_lock_dir=" + lock_dir)
                self.assertNotEqual(status, 0, output[-3000:])
                failed = self.failure(results, "db-1")
                self.assertIsNotNone(failed, output[-3000:])
                self.assertEqual(failed[0], "Refuse a probe lock directory root does not own alone")
                self.assertIn(what, failed[1])
                self.assertEqual(os.listdir(self.path("elsewhere")), [])
                self.assertEqual(os.listdir(theirs), [])
                self.assertEqual(os.stat(theirs).st_uid, NOBODY)


if __name__ == "__main__":
    hostile.main()
