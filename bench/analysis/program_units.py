"""Two program records compared as gpumeter compares them, and again with every instance taken as
its own pass (the rule before `gpumeter run --repeat`), to show what the choice of unit does to an
A-against-A comparison. Writes the instance-unit copies to a temporary folder and runs `gpumeter
compare` on both pairs.

    python3 bench/analysis/program_units.py GPUMETER BASE.json NEW.json
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path


def as_instance_units(path: Path, out: Path) -> Path:
    r = json.loads(path.read_text(encoding="utf-8"))
    # Without its program section (which requires one pass per run) the record reads as rows of
    # version 6; each instance becomes a pass of one sample.
    del r["program"]
    r["schema_version"] = 6
    for res in r["results"]:
        res["pass_sizes"] = [1] * len(res["samples"]["device_busy_ns"])
    out.write_text(json.dumps(r), encoding="utf-8")
    return out


def rows(gpumeter: str, a: Path, b: Path) -> list:
    o = subprocess.run([gpumeter, "compare", str(a), str(b)], capture_output=True, text=True,
                       check=False)
    return [line for line in o.stdout.splitlines() if line.startswith("| ") and " / " in line]


def main() -> int:
    gpumeter, base, new = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    with tempfile.TemporaryDirectory() as tmp:
        a = as_instance_units(base, Path(tmp) / "base.json")
        b = as_instance_units(new, Path(tmp) / "new.json")
        print("runs as the units (gpumeter compare):")
        print("\n".join(rows(gpumeter, base, new)))
        print("instances as the units:")
        print("\n".join(rows(gpumeter, a, b)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
