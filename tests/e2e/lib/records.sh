# Sourced by the end-to-end scripts that compare results files.
# same_samples REFERENCE FILE...: FILE... together hold every sample of
# REFERENCE exactly once (same model, problem, sample, source, device and
# size), each with REFERENCE's verdicts under the three protocols.
same_samples() {
python3 - "$@" <<'PY'
import json, sys
def load(path):
    return [json.loads(l) for l in open(path) if l.strip()]
def key(r):
    return (r["model"], r["problem"], r["sample"], r["source_sha256"], r["device"], r["size"])
def verdicts(r):
    return tuple(r["protocols"][p]["correct"] for p in ("standard", "verified", "strict"))
ref = {key(r): verdicts(r) for r in load(sys.argv[1])}
got = {}
for path in sys.argv[2:]:
    for r in load(path):
        assert key(r) not in got, ("recorded twice", key(r), path)
        got[key(r)] = verdicts(r)
assert set(got) == set(ref), ("samples differ", sorted(set(got) ^ set(ref)))
bad = [k for k in ref if got[k] != ref[k]]
assert not bad, ("verdicts differ", [(k, ref[k], got[k]) for k in bad])
PY
}
