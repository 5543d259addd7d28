"""The lab's addresses and ports for Python, read from the one table harness/addresses.env.

bash sources the same file (harness/lib/addresses.sh), Node parses it (harness/kit/addresses.mjs), CMake
turns it into loadgen's lab_addresses.h. Format: NAME=value lines, "#" comments, ${NAME} = an earlier value.
Use: sys.path has harness/lib, then `from lab_addresses import LAB` (LAB["LAB_RTPENGINE_NG"]: rtpengine's ng address).
"""
import os
import re

TABLE_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "addresses.env")

_LINE = re.compile(r"^([A-Z][A-Z0-9_]*)=(\S*)$")
_REF = re.compile(r"\$\{([A-Z][A-Z0-9_]*)\}")


def parse_table(text, file=TABLE_FILE):
    """{NAME: value} of addresses.env's text; ValueError naming the line on anything else."""
    table = {}
    for number, raw in enumerate(text.split("\n"), 1):
        line = re.sub(r"(^|\s)#.*$", "", raw).strip()
        if not line:
            continue
        m = _LINE.match(line)
        if not m:
            raise ValueError("%s:%d: not NAME=value: %s" % (file, number, raw))

        def ref(r):
            if r.group(1) not in table:
                raise ValueError("%s:%d: ${%s} is not an earlier name" % (file, number, r.group(1)))
            return table[r.group(1)]

        table[m.group(1)] = _REF.sub(ref, m.group(2))
    return table


with open(TABLE_FILE, encoding="utf-8") as _f:
    LAB = parse_table(_f.read())

if __name__ == "__main__":  # `python3 lab_addresses.py`: the table as NAME=value lines (harness/tests/addresses.test.mjs)
    for _name, _value in LAB.items():
        print("%s=%s" % (_name, _value))
