#!/bin/bash
# kbv report end to end: the files it writes from the fixtures in
# tests/data/report, --compare, error exits, and the HTML page in headless
# Chromium (no console errors, and a screenshot that shows the figures).
# Usage: report_page.sh BUILD_DIR. Output (page, screenshot, browser log) is
# kept in BUILD_DIR/e2e-report-page for a look afterwards.
set -u

build=${1:?usage: report_page.sh BUILD_DIR}
build=$(cd "$build" && pwd)
kbv=$build/kbv
here=$(cd "$(dirname "$0")" && pwd)
data=$(cd "$here/../data/report" && pwd)
out=$build/e2e-report-page
py=/usr/bin/python3
[ -x "$py" ] || py=python3

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
check() { # check DESCRIPTION COMMAND...
    local what=$1
    shift
    if "$@" >/dev/null 2>&1; then ok "$what"; else bad "$what"; fi
}
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit $?
}

if [ ! -x "$kbv" ]; then
    bad "no kbv at $kbv"
    finish
fi
rm -rf "$out"
mkdir -p "$out"

# ---- the report ------------------------------------------------------------
if "$kbv" report "$data/example.jsonl" "$data/small.jsonl" --out "$out/report" \
        >"$out/report.txt" 2>"$out/report.err"; then
    ok "kbv report exits 0"
else
    bad "kbv report failed: $(tail -n 1 "$out/report.err")"
    finish
fi
check "terminal table printed" grep -q "kbv results:" "$out/report.txt"
check "terminal table lists a model" grep -q "frontier-model-x" "$out/report.txt"
for f in tables.md tables.csv summary.json index.html; do
    check "$f written and not empty" test -s "$out/report/$f"
done
check "no temporary files left" bash -c "! ls '$out/report' '$out/report/figures' | grep -q '\.tmp$'"
nfig=$(ls "$out/report/figures"/*.svg 2>/dev/null | wc -l)
# 2 before/after + decomposed + tolerance + 3 CDFs + 3 memory-vs-speed + 5 models' failures + heat map
check "16 figures as .svg files (found $nfig)" test "$nfig" -eq 16
check "summary.json parses, with failure counts" "$py" -c '
import json, sys
s = json.load(open(sys.argv[1]))
g = [g for g in s["groups"] if g["model"] == "alpha" and g["level"] == "all"][0]
assert g["strict"]["failures"]["wrong@timed"] == 1, g["strict"]["failures"]
# the suite denominators, less what the audit found: 100 + 96 problems, 3 of them solved
assert s["denominator"] == "suite", s["denominator"]
assert g["problems"] == 196 and g["problems_sampled"] == 4, g
assert abs(g["standard"]["correct_pct"] - 300 / 196) < 1e-9
assert s["excluded"] == ["L2/23", "L2/36", "L2/80", "L2/83", "L3/28", "L3/36", "L3/37"], \
    s["excluded"]
' "$out/report/summary.json"
"$kbv" report "$data/example.jsonl" "$data/small.jsonl" --degenerate paper \
    --out "$out/paper" >/dev/null 2>&1
check "--degenerate paper: the paper's denominators, 100 + 97" "$py" -c '
import json, sys
s = json.load(open(sys.argv[1]))
g = [g for g in s["groups"] if g["model"] == "alpha" and g["level"] == "all"][0]
assert g["problems"] == 197, g
assert s["excluded"] == ["L2/23", "L2/80", "L2/83"], s["excluded"]
' "$out/paper/summary.json"
"$kbv" report "$data/example.jsonl" "$data/small.jsonl" --denominator sampled \
    --out "$out/sampled" >"$out/sampled.txt" 2>&1
check "--denominator sampled: over the problems with samples" "$py" -c '
import json, sys
s = json.load(open(sys.argv[1]))
g = [g for g in s["groups"] if g["model"] == "alpha" and g["level"] == "all"][0]
assert s["denominator"] == "sampled" and g["problems"] == 4, g
assert abs(g["standard"]["correct_pct"] - 75) < 1e-9
assert s["excluded"] == ["L2/23", "L2/80", "L3/28"], s["excluded"]
' "$out/sampled/summary.json"
check "--denominator sampled: the table says so" grep -q -- "--denominator sampled" "$out/sampled.txt"
printf 'L1/3 found constant\n' >"$out/degenerate.txt"
"$kbv" report "$data/small.jsonl" --degenerate "$out/degenerate.txt" --out "$out/deg" >/dev/null 2>&1
check "--degenerate FILE: its list, not the paper's" "$py" -c '
import json, sys
s = json.load(open(sys.argv[1]))
assert s["excluded"] == ["L1/3"], s["excluded"]
g = [g for g in s["groups"] if g["model"] == "alpha" and g["level"] == 2][0]
assert g["problems"] == 100, g
' "$out/deg/summary.json"
printf 'L2/23\nnonsense\n' >"$out/bad-degenerate.txt"
"$kbv" report "$data/small.jsonl" --degenerate "$out/bad-degenerate.txt" >/dev/null 2>"$out/bad-deg.err"
rc=$?
check "--degenerate with a bad line: exit 2 (rc $rc)" test "$rc" -eq 2
check "--degenerate with a bad line: names it" grep -q "bad-degenerate.txt line 2" "$out/bad-deg.err"
check "tables.csv: a header and 3 protocols per row group, all as wide" "$py" -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert len(rows) > 1 and (len(rows) - 1) % 3 == 0
assert all(len(r) == len(rows[0]) for r in rows)
assert rows[0][:3] == ["model", "level", "protocol"]
' "$out/report/tables.csv"
check "tables.md has the headline and the failure tables" \
    bash -c "grep -q '^## Headline' '$out/report/tables.md' && grep -q '^## Failures by reason' '$out/report/tables.md'"

page=$out/report/index.html
check "page: one inline script, nothing loaded" bash -c "test \$(grep -o '<script' '$page' | wc -l) -eq 1 && grep -q '<script>' '$page' && ! grep -q '<script src' '$page'"
check "page: no URL" bash -c "! grep -Eq 'https?:' '$page'"
check "page: model name escaped" bash -c "grep -q 'beta&lt;b&gt;' '$page' && ! grep -q 'beta<b>' '$page'"
check "page: compiler output escaped" grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$page"
check "page: figures inline" test "$(grep -c '<svg ' "$page")" -eq 16
check "page: every sample anchored" test "$(grep -c '<section class="sample" id="s-m' "$page")" -eq 227
check "page: reproduction commands" grep -q 'kbv dump L1/3 --full --dist D3 --seed [0-9]* --out dump-L1_3-D3' "$page"

# the same input gives the same bytes
"$kbv" report "$data/example.jsonl" "$data/small.jsonl" --out "$out/again" >/dev/null 2>&1
check "deterministic: index.html" cmp "$page" "$out/again/index.html"
check "deterministic: a figure" cmp "$out/report/figures/heatmap-verified.svg" "$out/again/figures/heatmap-verified.svg"

# ---- --compare and errors ------------------------------------------------------
if "$kbv" report --compare "$data/compare_a.jsonl" "$data/compare_b.jsonl" --out "$out/cmp" \
        --noise "$data/compare_noise_1.jsonl" --noise "$data/compare_noise_2.jsonl" \
        --noise "$data/compare_noise_3.jsonl" >"$out/compare.txt" 2>&1; then
    ok "kbv report --compare exits 0"
else
    bad "kbv report --compare failed: $(tail -n 1 "$out/compare.txt")"
fi
check "compare: a change inside the noise is no change" grep -q "^L1/1 .*no change (within noise)" "$out/compare.txt"
check "compare: a change beyond the noise is faster" grep -q "^L1/2 .*B faster 1.25x" "$out/compare.txt"
check "compare: broken and fixed" bash -c "grep -q '^L1/3 .*broken' '$out/compare.txt' && grep -q '^L1/4 .*fixed' '$out/compare.txt'"
check "compare: compare.md written" grep -q '^## strict (vs tf32)' "$out/cmp/compare.md"
check "compare: the noise from the repeats" grep -q "from 3 repeated runs" "$out/compare.txt"
"$kbv" report --compare "$data/compare_a.jsonl" "$data/compare_b.jsonl" >"$out/compare-unknown.txt" 2>&1
check "compare without repeats, baselines shared: not judged" \
    bash -c "grep -q 'Run-to-run noise (verified): unknown' '$out/compare-unknown.txt' && grep -q '^L1/2 .*B faster 1.25x (run-to-run noise unknown)' '$out/compare-unknown.txt'"
"$kbv" report --compare "$data/compare_a.jsonl" "$data/compare_b.jsonl" --noise "$data/compare_noise_1.jsonl" >/dev/null 2>"$out/one-noise.err"
check "--noise with one run: exit 2" test $? -eq 2
"$kbv" report "$data/no-such.jsonl" --out "$out/x" >/dev/null 2>"$out/missing.err"
check "missing results file: exit 2" test $? -eq 2
check "missing results file: says which" grep -q "no-such.jsonl" "$out/missing.err"
"$kbv" report --compare "$data/compare_a.jsonl" >/dev/null 2>&1
check "--compare with one file: exit 2" test $? -eq 2
"$kbv" report --compare "$data/small.jsonl" "$data/compare_b.jsonl" >/dev/null 2>"$out/two.err"
check "--compare on a file of two models asks for --model-a" grep -q -- "--model-a" "$out/two.err"

# ---- the drill-down: the candidate's source beside the verdicts ------------------
# one record of small.jsonl whose file is here (the bytes evaluated), and one
# whose file changed since
mkdir -p "$out/src/runs/alpha"
cp "$here/../../examples/runs/demo-a/level_1_problem_19_sample_0.c" "$out/src/runs/alpha/level_1_problem_1_sample_0.c"
printf '// changed\n' >"$out/src/runs/alpha/level_1_problem_1_sample_1.c"
"$py" - "$data/small.jsonl" "$out/src" <<'EOF'
import hashlib, json, sys
src, dst = sys.argv[1], sys.argv[2]
recs = [json.loads(l) for l in open(src) if l.strip()][:2]
recs[0]["file"] = "runs/alpha/level_1_problem_1_sample_0.c"
recs[0]["source_sha256"] = hashlib.sha256(open(dst + "/" + recs[0]["file"], "rb").read()).hexdigest()
recs[1]["file"] = "runs/alpha/level_1_problem_1_sample_1.c"
with open(dst + "/results.jsonl", "w") as f:
    for r in recs:
        f.write(json.dumps(r) + "\n")
EOF
"$kbv" report "$out/src/results.jsonl" --out "$out/src/report" >/dev/null 2>&1
check "drill-down: the source evaluated is shown (found beside the results file)" \
    grep -q "kbv_forward" "$out/src/report/index.html"
check "drill-down: a file that changed since is not shown" \
    grep -q "is not the source evaluated" "$out/src/report/index.html"
check "drill-down: the PyTorch reference" grep -q "torch.matmul" "$out/src/report/index.html"

# ---- records of other kbv versions ---------------------------------------------
"$kbv" report "$data/legacy.jsonl" --out "$out/legacy" >"$out/legacy.txt" 2>"$out/legacy.err"
check "old records: kbv report exits 0" test $? -eq 0
check "old records: read, with the notes" bash -c "grep -q 'note: 2 records written before kbv recorded the verified gate' '$out/legacy.err' && grep -q 'note: 2 records written before the sandbox' '$out/legacy.err'"
check "newer records: counted and named, not dropped silently" \
    grep -q "2 records of schema 2, written by a newer kbv, not read" "$out/legacy.err"
check "old and newer records: on the page" bash -c "grep -q 'records of schema 2' '$out/legacy/index.html' && grep -q 'before the sandbox' '$out/legacy/index.html'"
"$kbv" merge "$data/legacy.jsonl" "$data/small.jsonl" --out "$out/merged.jsonl" \
    >"$out/merge.txt" 2>"$out/merge.err"
check "merge: exits 0" test $? -eq 0
check "merge: the newer records kept whole" bash -c "test \$(grep -c '\"schema\":2' '$out/merged.jsonl') -eq 2 && grep -q 'kept whole' '$out/merge.err'"
check "merge: the old records kept, with the note" bash -c "grep -q '\"model\":\"old-kbv\",\"problem\":\"L1/1\"' '$out/merged.jsonl' && grep -q 'note: 2 records written before the sandbox' '$out/merge.err'"
check "merge: every line of the inputs is in the output" \
    test "$(wc -l <"$out/merged.jsonl")" -eq "$(cat "$data/legacy.jsonl" "$data/small.jsonl" | wc -l)"

# ---- the page in a browser -----------------------------------------------------------
chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chrome" ]; then
    bad "chromium is not installed: run scripts/setup.sh (CI installs it)"
    finish
fi
profile=$(mktemp -d)
timeout 180 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --enable-logging=stderr --v=0 \
    --screenshot="$out/screenshot.png" --window-size=1400,2400 "file://$page" \
    >"$out/chromium.log" 2>&1
rc=$?
rm -rf "$profile"
check "chromium exits 0 (rc $rc)" test "$rc" -eq 0
check "no console errors" bash -c "! grep -Eq 'Uncaught|ERROR:CONSOLE|CONSOLE.*(Error|Refused)' '$out/chromium.log'"
check "screenshot written" test -s "$out/screenshot.png"
# the tables sort: the page opened with ?sort= runs its script in the browser;
# the DOM it leaves has the rows in the asked order
for sort in "t-metrics-verified:6:desc" "t-summary:1:asc" "t-problems-m0:2:desc"; do
    profile=$(mktemp -d)
    timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$profile" --dump-dom "file://$page?sort=$sort" \
        >"$out/sorted.html" 2>"$out/sorted.log"
    rm -rf "$profile"
    check "sorted in the browser: $sort" "$py" - "$out/sorted.html" "$sort" <<'EOF'
import html.parser, re, sys
dom, sort = open(sys.argv[1]).read(), sys.argv[2]
table, col, order = sort.split(":")
col = int(col)
class Rows(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.depth = 0; self.rows = []; self.cell = None; self.sorted = None
        self.tbody = False
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("id") == table:
            self.depth = 1; self.sorted = a.get("data-sorted")
        elif self.depth and tag == "table":
            self.depth += 1
        elif self.depth == 1 and tag == "tbody":
            self.tbody = True
        elif self.depth == 1 and self.tbody and tag == "tr":
            self.rows.append([])
        elif self.depth == 1 and self.tbody and tag == "td":
            self.cell = [a.get("data-v"), ""]
    def handle_endtag(self, tag):
        if self.depth and tag == "table":
            self.depth -= 1
        elif self.cell is not None and tag == "td":
            self.rows[-1].append(self.cell); self.cell = None
    def handle_data(self, data):
        if self.cell is not None:
            self.cell[1] += data
p = Rows(); p.feed(dom)
assert p.sorted == "%d:%s" % (col, order), ("data-sorted", p.sorted)
assert len(p.rows) >= 2, len(p.rows)
def key(c):
    v, t = c
    if v is not None:
        return float(v)
    m = re.match(r"\s*(-?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?)", t, re.I)
    return float(m.group(1)) if m else None
keys = [key(r[col]) for r in p.rows]
nums = [k for k in keys if k is not None]
if nums:   # numbers in order, cells without one last
    assert keys[:len(nums)] == nums, keys
    assert nums == sorted(nums, reverse=(order == "desc")), nums
else:
    texts = [r[col][1].strip() for r in p.rows]
    assert texts == sorted(texts, key=str.casefold, reverse=(order == "desc")), texts
print(sort, keys[:6])
EOF
done
# Decodes the PNG (zlib + scanline filters) and counts colours in the top
# 1200 rows: a blank page has one or two; the figures' bars add the model
# and protocol colours (#0072b2 verified, #d55e00 strict).
check "screenshot shows the tables and figures" "$py" - "$out/screenshot.png" <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, ihdr = 8, [], None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        ihdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat.append(body)
    pos += 12 + n
w, h, depth, ctype = ihdr[:4]
assert depth == 8 and ctype in (2, 6), ihdr
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(b"".join(idat))
stride = w * bpp
prev = bytearray(stride)
colours, blue, orange = set(), 0, 0
for y in range(min(h, 1200)):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    if f == 1:
        for i in range(bpp, stride):
            line[i] = (line[i] + line[i - bpp]) & 255
    elif f == 2:
        line = bytearray((a + b) & 255 for a, b in zip(line, prev))
    elif f == 3:
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
    elif f == 4:
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            line[i] = (line[i] + pr) & 255
    for x in range(0, stride, bpp):
        r, g, b = line[x], line[x + 1], line[x + 2]
        colours.add((r, g, b))
        if abs(r - 0x00) < 24 and abs(g - 0x72) < 24 and abs(b - 0xb2) < 24:
            blue += 1
        if abs(r - 0xd5) < 24 and abs(g - 0x5e) < 24 and abs(b - 0x00) < 24:
            orange += 1
    prev = line
print("colours", len(colours), "blue", blue, "orange", orange)
assert len(colours) > 64, len(colours)
assert blue > 500 and orange > 500, (blue, orange)
EOF

finish
