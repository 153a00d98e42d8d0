# Shared by the places benchmarks (sourced, with WORK and PORT set by the caller):
# search URLs over the Nordic extract, the two wrk loads and their one-line summary.

# Search URLs over the seeded Nordic extract: 1–4 letter prefixes of its names at the place.
nordic_urls() {
  python3 - "$WORK/nordic-urls.txt" <<'PY'
import random, sys, unicodedata, urllib.parse
rng = random.Random(3)
rows = [l.rstrip("\n").split("\t") for l in open("data/geonames/nordic-cities1000.txt", encoding="utf-8")]
with open(sys.argv[1], "w") as out:
    for _ in range(5000):
        r = rng.choice(rows)
        name = unicodedata.normalize("NFKD", r[1]).encode("ascii", "ignore").decode().lower()
        q = urllib.parse.quote(name[: rng.randint(1, 4)] or "a")
        out.write(f"/v1/places?q={q}&lat={float(r[4]):.3f}&lon={float(r[5]):.3f}&limit=10\n")
PY
}

summary() {  # label wrk-output
  python3 - "$1" "$2" <<'PY'
import re, sys
label, text = sys.argv[1], open(sys.argv[2]).read()
def ms(key):
    m = re.search(rf"^\s*{key}\s+([\d.]+)(us|ms|s)\b", text, re.M)
    if not m: return float("nan")
    return float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[m.group(2)]
def mx():
    m = re.search(r"^\s*Latency\s+\S+\s+\S+\s+([\d.]+)(us|ms|s)\b", text, re.M)
    return float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[m.group(2)] if m else float("nan")
requests = re.search(r"(\d+) requests in", text)
non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
errors = re.search(r"Socket errors: (.*)", text)
print(f"{label}: {requests.group(1) if requests else '?'} requests, p50 {ms('50%'):.2f} ms, p99 {ms('99%'):.2f} ms, "
      f"max {mx():.1f} ms, non-2xx {non2xx.group(1) if non2xx else 0}, socket errors {errors.group(1) if errors else 'none'}")
PY
}
load() {  # seconds-or-0 tag: both loads at once; 0 = until SIGINT
  local duration=${1}; local tag=$2
  [ "$duration" = 0 ] && duration=3600
  wrk -t1 -c2 -d"${duration}s" --latency -s tools/bench/subscribe.lua "http://127.0.0.1:$PORT" >"$WORK/wrk-write-$tag.txt" 2>&1 &
  WRITE=$!
  PLACES_URLS="$WORK/nordic-urls.txt" wrk -t1 -c2 -d"${duration}s" --latency -s tools/bench/places-urls.lua "http://127.0.0.1:$PORT" \
    >"$WORK/wrk-search-$tag.txt" 2>&1 &
  SEARCH=$!
}
