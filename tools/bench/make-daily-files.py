#!/usr/bin/env python3
"""Writes one day of GeoNames update files made from a geoname dump, for the daily-update
benchmark (tools/bench/places-no-downtime.sh):

  modifications-2026-11-24.txt          60 % of CHANGES: rows of DUMP, each with one edit —
                                        population (half of them), name (a fifth), a
                                        coordinate nudge of up to 0.02° (a fifth), or only
                                        the modification date (a tenth)
  deletes-2026-11-24.txt                4 %: geonameids of DUMP, and 10 unknown ones
  alternateNamesModifications-….txt     34 %: alternate names of DUMP places (1 in 5 an
                                        airport code, the rest names in fi/sv/en)
  alternateNamesDeletes-….txt           2 %: alternateNameIds unknown to the database

CHANGES is the day's row count in all four files (GeoNames publishes about 5,000 a day).

  make-daily-files.py DUMP ROWS CHANGES OUTDIR [SEED]

ROWS is the dump's line count (lines are sampled in one pass). Deterministic for a seed.
"""
import os
import random
import sys

dump, rows, changes, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rng = random.Random(int(sys.argv[5]) if len(sys.argv) > 5 else 1)
modifications = changes * 60 // 100
deletes = max(changes * 4 // 100 - 10, 1)
alternates = max(changes * 34 // 100, 1)
alternate_deletes = max(changes * 2 // 100, 1)
picked = rng.sample(range(rows), modifications + deletes + alternates)
role = {}
for index, line in enumerate(picked):
    role[line] = "modify" if index < modifications else "delete" if index < modifications + deletes else "alternate"

os.makedirs(out, exist_ok=True)
day = "2026-11-24"
files = {name: open(os.path.join(out, f"{name}-{day}.txt"), "w", encoding="utf-8")
         for name in ("modifications", "deletes", "alternateNamesModifications", "alternateNamesDeletes")}
alternate_id = 900_000_000
with open(dump, encoding="utf-8", errors="replace") as source:
    for number, line in enumerate(source):
        kind = role.get(number)
        if kind is None:
            continue
        fields = line.rstrip("\n").split("\t")
        if len(fields) != 19 or not fields[0].isdigit():
            continue  # the generator's dirty rows
        if kind == "modify":
            edit = rng.random()
            if edit < 0.5:
                fields[14] = str(max(int(fields[14] or 0) + rng.randint(-500, 5000), 0))
            elif edit < 0.7:
                fields[1] = fields[1] + " Uusi"
            elif edit < 0.9:
                fields[4] = f"{max(min(float(fields[4]) + rng.uniform(-0.02, 0.02), 90), -90):.5f}"
                fields[5] = f"{max(min(float(fields[5]) + rng.uniform(-0.02, 0.02), 180), -180):.5f}"
            fields[18] = day
            files["modifications"].write("\t".join(fields) + "\n")
        elif kind == "delete":
            files["deletes"].write(f"{fields[0]}\t{fields[1]}\tbenchmark delete\n")
        else:
            alternate_id += 1
            if rng.random() < 0.2:
                language, name = "iata", "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(3))
            else:
                language, name = rng.choice(["fi", "sv", "en"]), fields[1] + rng.choice([" kaupunki", " stad", " Town"])
            files["alternateNamesModifications"].write(
                f"{alternate_id}\t{fields[0]}\t{language}\t{name}\t{1 if rng.random() < 0.3 else ''}\t\t\t\t\t\n")
for unknown in range(10):
    files["deletes"].write(f"{999_000_000 + unknown}\tNowhere\tunknown id\n")
for unknown in range(alternate_deletes):
    files["alternateNamesDeletes"].write(f"{990_000_000 + unknown}\t1\tNothing\tunknown id\n")
for handle in files.values():
    handle.close()
print(" ".join(os.path.join(out, f"{name}-{day}.txt") for name in files))
