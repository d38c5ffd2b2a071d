# fleet_test_json: every task's result per host, as one JSON document, for tests/ansible/fleet-test
# to assert on. ansible-core has no json callback (that is the ansible.posix collection's), and a
# notification callback leaves the readable default output on stdout for the test's logs.
# Shaped like ansible.posix.json: {"plays": [{"play": {"name"}, "tasks": [{"task": {"name"},
# "hosts": {HOST: RESULT}}]}], "stats": {HOST: {"ok", "changed", "failures", "unreachable", ...}}};
# a task's name is its own, without the "role : " prefix.
import json
import os

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
    name: fleet_test_json
    type: notification
    short_description: task results as JSON into the file $FLEET_TEST_JSON names
    description: For tests/ansible/fleet-test.
"""


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "notification"
    CALLBACK_NAME = "fleet_test_json"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        self.plays = []
        self.tasks = {}

    def v2_playbook_on_play_start(self, play):
        self.plays.append({"play": {"name": play.get_name()}, "tasks": []})

    def v2_playbook_on_task_start(self, task, is_conditional):
        if task._uuid not in self.tasks:
            entry = {"task": {"name": task.name or task.action}, "hosts": {}}
            self.tasks[task._uuid] = entry
            self.plays[-1]["tasks"].append(entry)

    v2_playbook_on_handler_task_start = v2_playbook_on_task_start

    def _record(self, result, **flags):
        entry = self.tasks.get(result._task._uuid)
        if entry is None:
            self.v2_playbook_on_task_start(result._task, False)
            entry = self.tasks[result._task._uuid]
        outcome = dict(result._result)
        outcome.update(flags)
        entry["hosts"][result._host.get_name()] = outcome

    def v2_runner_on_ok(self, result):
        self._record(result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._record(result, failed=True)

    def v2_runner_on_skipped(self, result):
        self._record(result, skipped=True)

    def v2_runner_on_unreachable(self, result):
        self._record(result, unreachable=True)

    def v2_playbook_on_stats(self, stats):
        summary = {host: stats.summarize(host) for host in sorted(stats.processed)}
        with open(os.environ["FLEET_TEST_JSON"], "w", encoding="utf-8") as out:
            json.dump({"plays": self.plays, "stats": summary}, out, default=str, indent=1)
