"""Attack 8: values from a snapshot are inert in every report format.

A snapshot someone attached to a bug report carries a terminal escape (retitle the window, clear
the screen) and markup with a line break in its host name, kernel command line, NVMe model,
kernel release and a block scheduler a rule quotes in its evidence. kdrift check and kdrift diff
print them escaped (\\x1b) in text, as entities that cannot leave their line, cell or code span
in markdown, and as entities in HTML. kdrift export prometheus writes them as label values
that cannot end their quotes, their line or their UTF-8: node_exporter would drop the file.
"""

import gzip
import json
import os
import re

import hostile

FIXTURES = os.path.join(hostile.SOURCE_DIR, "tests", "fixtures", "snapshots")
TERMINAL = "\x1b]0;pwned\x07\x1b[2J"
MARKUP = "<img src=x onerror=alert(1)>\n| injected |"
FORMATS = ("text", "markdown", "html")


def hostile_snapshot(path):
    """intel-strict with the attack in five values; the scheduler makes block.scheduler quote it."""
    with gzip.open(os.path.join(FIXTURES, "intel-strict.json.gz")) as f:
        snapshot = json.load(f)
    attack = TERMINAL + MARKUP
    snapshot["environment"]["hostname"] = "host" + attack
    snapshot["kernel"]["cmdline"]["raw"] += " " + attack
    snapshot["kernel"]["release"] = "6.1.0" + attack
    snapshot["nvme"]["controllers"]["nvme0"]["model"] = "QEMU NVMe Ctrl" + attack
    snapshot["block"]["devices"]["nvme0n1"]["scheduler"]["active"] = "mq-deadline" + attack
    with open(path, "w") as f:
        json.dump(snapshot, f)
    return path


class InertText(hostile.Case):
    def setUp(self):
        super().setUp()
        self.snapshot = hostile_snapshot(self.path("hostile.json"))
        self.baseline = os.path.join(FIXTURES, "intel-lazy.json.gz")

    def reports(self, output_format):
        """check and diff of the hostile snapshot, in output_format, as printed to a terminal."""
        runs = [hostile.run_kdrift(["check", self.snapshot, "--format", output_format]),
                hostile.run_kdrift(["diff", self.baseline, self.snapshot,
                                    "--format", output_format])]
        for run in runs:
            self.assertIn(run.status, (0, 1), str(run))
        return runs

    def test_text_shows_control_characters_escaped(self):
        for run in self.reports("text"):
            self.assertNoControlBytes(run.stdout)
            # Not vacuous: the values are in the report, escaped.
            self.assertIn(b"host\\x1b]0;pwned\\x07\\x1b[2J<img", run.stdout)
            self.assertIn(b"mq-deadline\\x1b]0;pwned", run.stdout)
            self.assertNotIn(b"\n| injected", run.stdout)

    def test_markdown_makes_no_html_and_no_new_table_row(self):
        for run in self.reports("markdown"):
            self.assertNotIn(b"<img", run.stdout)
            self.assertIn(b"&lt;img src=x onerror=alert(1)&gt;", run.stdout)
            self.assertNoControlBytes(run.stdout)
            for line in run.stdout.split(b"\n"):
                self.assertFalse(line.lstrip().startswith(b"| injected"), line)

    def test_html_makes_no_tag_of_a_value(self):
        for run in self.reports("html"):
            self.assertNotIn(b"<img", run.stdout)
            self.assertIn(b"&lt;img src=x onerror=alert(1)&gt;", run.stdout)
            self.assertNotIn(b"\x1b", run.stdout)

    def test_the_diff_names_each_hostile_change_escaped(self):
        diff = self.reports("text")[1].stdout
        for value in (b"QEMU NVMe Ctrl\\x1b]0;pwned", b"6.1.0\\x1b]0;pwned",
                      b"iommu.strict=1 \\x1b]0;pwned"):
            self.assertIn(value, diff)


def hostile_inputs(directory):
    return [hostile_snapshot(os.path.join(directory, "text-escapes.json"))]


# A sample line of the exposition format: a kdrift_ name, labels whose values hold no raw quote,
# backslash or newline (only their escapes), and a number.
SAMPLE = re.compile(rb'^kdrift_[a-z_]+(\{([a-z_]+="([^"\\\n]|\\[\\"n])*",?)*\})? [-+0-9.e]+$')


class InertMetrics(hostile.Case):
    def test_prometheus_label_values_stay_inside_their_quotes(self):
        snapshot = hostile_snapshot(self.path("hostile.json"))
        run = hostile.run_kdrift(["export", "prometheus", snapshot])
        self.assertEqual(run.status, 0, str(run))
        run.stdout.decode("utf-8")  # valid UTF-8, or this raises
        self.assertNoControlBytes(run.stdout)
        for line in run.stdout.rstrip(b"\n").split(b"\n"):
            if not line.startswith(b"# "):
                self.assertRegex(line, SAMPLE)
        # Not vacuous: the values are there, the escape sequence made inert and the newline escaped.
        self.assertIn('model="QEMU NVMe Ctrl\ufffd]0;pwned\ufffd\ufffd[2J<img src=x '
                      'onerror=alert(1)>\\n| injected |"'.encode(), run.stdout)


if __name__ == "__main__":
    hostile.main()
