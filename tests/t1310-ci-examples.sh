#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='CI examples: the GitHub action and the GitLab template run imgpatch-ci.sh, which patches; the fleet examples run'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools xz gzip jq mtype fdtget debugfs e2fsck fsck.fat xargs

CI=$REPO_DIR/ci/examples
SCRIPT=$CI/imgpatch-ci.sh

# A python3 with yaml (python3-yaml, from ci/install-deps.sh).
PY=
for py in python3 /usr/bin/python3; do
	if "$py" -c 'import yaml' 2>/dev/null; then
		PY=$py
		break
	fi
done
[ -n "$PY" ] || test_require_tools python3-yaml

# The build's imgpatch is the one on PATH, so install steps have nothing to do.
mkdir bin && ln -s "$IMGPATCH" bin/imgpatch
export PATH=$TEST_OUT/bin:$PATH
export IMGPATCH_RECIPE_PATH=$IMGPATCH_BUILD/recipes


test_expect_success 'build the KV260-like image' '
	make_kv260 kv.img && sum_file kv.img >kv.sum
'

# ---------------------------------------------------------------- GitHub

test_expect_success 'action.yml: a composite action whose steps run imgpatch-ci.sh with every input' '
	"$PY" - "$CI/github-action/action.yml" <<-\EOF
	import re, sys, yaml
	a = yaml.safe_load(open(sys.argv[1]))
	assert a["runs"]["using"] == "composite", a["runs"]
	inputs = a["inputs"]
	for k in ("image", "recipes", "set", "output", "compress", "source", "install"):
	    assert k in inputs, k
	assert inputs["image"]["required"] is True and inputs["recipes"]["required"] is True
	steps = a["runs"]["steps"]
	runs = [s for s in steps if "run" in s]
	assert len(runs) == len(steps) == 2, steps
	used = set()
	for s in runs:
	    assert s["shell"] == "bash", s
	    assert re.search(r"\"\$GITHUB_ACTION_PATH/\.\./imgpatch-ci\.sh\" (install|apply) ", s["run"]), s["run"]
	    # No expression pasted into the script text: inputs come as env.
	    assert "${{" not in s["run"], s["run"]
	    for var, val in s["env"].items():
	        m = re.fullmatch(r"\$\{\{ inputs\.([\w-]+) \}\}", val)
	        assert m and m.group(1) in inputs, (var, val)
	        assert "\"$%s\"" % var in s["run"], var
	        used.add(m.group(1))
	assert used == set(inputs), set(inputs) - used
	assert "imgpatch-ci.sh\" install" in runs[0]["run"] and "imgpatch-ci.sh\" apply" in runs[1]["run"]
	assert runs[1]["id"] == "apply"
	for out in ("image", "report"):
	    assert a["outputs"][out]["value"] == "${{ steps.apply.outputs.%s }}" % out, a["outputs"]
	EOF
'

# render_action INPUTS.json DIR: each step of the action as GitHub runs it:
# DIR/step-N.sh with the step's env (its ${{ inputs.X }} filled in) and run
# text, or no file when the step's `if:` is false; the `if:` forms the
# action uses are evaluated, any other is an error.
render_action()
{
	"$PY" - "$CI/github-action/action.yml" "$1" "$2" <<-\EOF
	import json, os, re, shlex, sys, yaml
	a = yaml.safe_load(open(sys.argv[1]))
	given = json.load(open(sys.argv[2]))
	inputs = {k: str(v.get("default", "")) for k, v in a["inputs"].items()}
	for k, v in given.items():
	    assert k in inputs, k
	    inputs[k] = v
	expr = re.compile(r"\$\{\{ inputs\.([\w-]+) \}\}")
	for n, s in enumerate(a["runs"]["steps"]):
	    cond = s.get("if")
	    if cond is not None:
	        m = re.fullmatch(r"inputs\.([\w-]+) (==|!=) '([^']*)'", cond)
	        assert m, cond
	        if (inputs[m.group(1)] == m.group(3)) != (m.group(2) == "=="):
	            continue
	    with open(os.path.join(sys.argv[3], "step-%d.sh" % n), "w") as f:
	        for var, val in s.get("env", {}).items():
	            f.write("export %s=%s\n" % (var, shlex.quote(expr.sub(lambda m: inputs[m.group(1)], val))))
	        f.write(s["run"])
	EOF
}

# run_steps DIR: runs DIR/step-*.sh in order as a bash step runs
# (bash --noprofile --norc -eo pipefail), with the action's path and a
# GITHUB_OUTPUT file; output in DIR/log.
run_steps()
{
	local step

	: >"$1/github_output"
	for step in "$1"/step-*.sh; do
		GITHUB_ACTION_PATH=$CI/github-action GITHUB_OUTPUT=$TEST_OUT/$1/github_output \
			bash --noprofile --norc -eo pipefail "$step" >>"$1/log" 2>&1 || {
			cat "$1/log"
			return 1
		}
	done
	cat "$1/log"
}

test_expect_success 'the action'"'"'s steps: imgpatch on PATH is used, two recipes, an .xz output' '
	mkdir gh &&
	cat >gh/inputs.json <<-\EOF &&
	{"image": "kv.img", "recipes": "kv260-uhs\nfstab-noatime", "set": "carrier=revB",
	 "output": "gh-out/kv-patched.img.xz", "level": "0"}
	EOF
	render_action gh/inputs.json gh &&
	ls gh/step-0.sh gh/step-1.sh &&
	run_steps gh &&
	grep "^imgpatch-ci: .*/bin/imgpatch is there (imgpatch .*): not building another" gh/log &&
	grep -x "image=gh-out/kv-patched.img.xz" gh/github_output &&
	grep -x "report=gh-out/kv-patched.img.xz.imgpatch.txt" gh/github_output &&
	xz -t gh-out/kv-patched.img.xz &&
	xz -dc gh-out/kv-patched.img.xz >gh.img && kv260_patched gh.img &&
	test_file_unchanged kv.img "$(cat kv.sum)" &&
	grep "^    -			no-1-8-v;" gh-out/kv-patched.img.xz.imgpatch.txt &&
	grep "^recipe fstab-noatime: already applied" gh-out/kv-patched.img.xz.imgpatch.txt &&
	ls -A gh-out >files && test "$(wc -l <files)" = 2
'

test_expect_success 'the action with install: never runs no install step' '
	mkdir gh2 &&
	echo "{\"image\": \"x.img\", \"recipes\": \"r\", \"install\": \"never\"}" >gh2/inputs.json &&
	render_action gh2/inputs.json gh2 &&
	! test -e gh2/step-0.sh && test -e gh2/step-1.sh
'

# ---------------------------------------------------------------- the script

test_expect_success 'apply: two recipes into a raw copy; NAME=VALUE only to the recipe that takes it' '
	"$SCRIPT" apply --image kv.img --recipes "kv260-uhs fstab-noatime" --set carrier=revB \
		--output out/raw.img --outputs outputs >log &&
	cat log &&
	kv260_patched out/raw.img &&
	test_file_unchanged kv.img "$(cat kv.sum)" &&
	grep "^imgpatch-ci: imgpatch apply kv260-uhs kv.img .* --set carrier=revB$" log &&
	grep "^imgpatch-ci: imgpatch apply fstab-noatime .* -o out/raw.img$" log &&
	printf "image=out/raw.img\nreport=out/raw.img.imgpatch.txt\n" >expect && test_cmp expect outputs &&
	ls -A out >files && printf "raw.img\nraw.img.imgpatch.txt\n" >expect && test_cmp expect files
'

test_expect_success 'apply: RECIPE:NAME=VALUE, one recipe, in place' '
	cp kv.img inplace.img &&
	"$SCRIPT" apply --image inplace.img --recipes kv260-uhs --set kv260-uhs:carrier=revB >log &&
	kv260_patched inplace.img &&
	ls -A >files && ! grep "imgpatch-undo\|^\.imgpatch-ci" files
'

test_expect_success 'apply: several recipes in place on a compressed image: it stays compressed' '
	cp kv.img gz.img && gzip -1 gz.img &&
	"$SCRIPT" apply --image gz.img.gz --recipes "fstab-noatime kv260-uhs" --set carrier=revB >log &&
	gzip -t gz.img.gz && gzip -dc gz.img.gz >gz.img && kv260_patched gz.img
'

# refuses PATTERN ARGS...: the script fails saying PATTERN, kv.img is
# unchanged, and no output or working copy is left.
refuses()
{
	local pattern=$1

	shift
	rm -rf r && mkdir r &&
	test_must_fail "$SCRIPT" apply --image kv.img --output r/out.img "$@" >stdout 2>err &&
	cat err &&
	grep -q -- "$pattern" err &&
	test_file_unchanged kv.img "$(cat kv.sum)" &&
	! test -e r/out.img && ! ls -A r | grep -q imgpatch-ci
}

test_expect_success 'apply refuses a parameter no recipe takes' '
	refuses "no recipe of .kv260-uhs fstab-noatime. takes the parameter .carier. (carier=revB)" \
		--recipes "kv260-uhs fstab-noatime" --set carier=revB
'

test_expect_success 'apply refuses RECIPE:NAME=VALUE for a recipe that does not take NAME' '
	refuses "takes the parameter .carrier." \
		--recipes "kv260-uhs fstab-noatime" --set "carrier=revB fstab-noatime:carrier=revB"
'

test_expect_success 'apply: a later recipe that fails leaves no output (all or nothing)' '
	refuses "imgpatch: parameter .carrier. is required" --recipes "fstab-noatime kv260-uhs"
'

test_expect_success 'apply: an unknown recipe' '
	refuses "imgpatch: .*no-such-recipe" --recipes "no-such-recipe"
'

test_expect_success 'usage errors exit 2; --help' '
	test_must_fail_with 2 "$SCRIPT" apply --image kv.img --recipes x --bogus 2>err &&
	grep "unknown option .--bogus." err &&
	test_must_fail_with 2 "$SCRIPT" 2>err && grep "expected .install. or .apply." err &&
	test_must_fail_with 1 "$SCRIPT" apply --image kv.img 2>err && grep "recipes is required" err &&
	"$SCRIPT" --help >help && grep "^  imgpatch-ci.sh apply --image IMG" help
'

test_expect_success 'install --if-missing: nothing is built when imgpatch is on PATH' '
	"$SCRIPT" install --if-missing --source /nonexistent >log &&
	grep "is there (imgpatch .*): not building another" log
'

test_expect_success 'install: a folder that is no imgpatch tree is refused before anything runs' '
	test_must_fail_with 1 "$SCRIPT" install --no-apt --source "$TEST_OUT" 2>err &&
	grep "is not an imgpatch source tree" err
'

# ---------------------------------------------------------------- GitLab

test_expect_success 'gitlab-ci.yml: the .imgpatch template runs the same script' '
	"$PY" - "$CI/gitlab-ci.yml" <<-\EOF
	import sys, yaml
	job = yaml.safe_load(open(sys.argv[1]))[".imgpatch"]
	script = job["before_script"] + job["script"]
	assert any("ci/examples/imgpatch-ci.sh\" install --if-missing" in l for l in script), script
	apply = [l for l in script if "ci/examples/imgpatch-ci.sh\" apply" in l]
	assert len(apply) == 1, script
	for var in job["variables"]:
	    if var.startswith("IMGPATCH_") and var != "IMGPATCH_DIR":
	        assert "\"$%s\"" % var in apply[0], var
	assert job["artifacts"]["reports"]["dotenv"] == "imgpatch.env"
	assert "--outputs imgpatch.env" in apply[0]
	EOF
'

test_expect_success 'the GitLab job'"'"'s script lines, run as a runner runs them, patch the image' '
	mkdir gl &&
	"$PY" - "$CI/gitlab-ci.yml" gl/job.sh <<-\EOF &&
	import shlex, sys, yaml
	job = yaml.safe_load(open(sys.argv[1]))[".imgpatch"]
	env = dict(job["variables"])
	# The example job of the file header, with the tree checked out here.
	env.update({"IMGPATCH_DIR": "REPO", "IMGPATCH_IMAGE": "../kv.img",
	            "IMGPATCH_RECIPES": "kv260-uhs fstab-noatime", "IMGPATCH_SET": "carrier=revB",
	            "IMGPATCH_OUTPUT": "patched/kv.img.gz", "IMGPATCH_LEVEL": "1"})
	with open(sys.argv[2], "w") as f:
	    f.write("set -eo pipefail\n")
	    for k, v in env.items():
	        f.write("export %s=%s\n" % (k, shlex.quote(v)))
	    for line in job["before_script"] + job["script"]:
	        f.write(line + "\n")
	EOF
	sed -i "s|^export IMGPATCH_DIR=REPO$|export IMGPATCH_DIR=$REPO_DIR|" gl/job.sh &&
	(cd gl && bash --noprofile --norc job.sh >log 2>&1) || { cat gl/log; false; } &&
	cat gl/log &&
	grep -x "image=patched/kv.img.gz" gl/imgpatch.env &&
	gzip -t gl/patched/kv.img.gz && gzip -dc gl/patched/kv.img.gz >gl.img && kv260_patched gl.img &&
	test -s gl/patched/kv.img.gz.imgpatch.txt
'

# ---------------------------------------------------------------- fleets

# fleet_block NAME: the README block that starts with "# fleet: NAME".
fleet_block()
{
	awk -v want="# fleet: $1" '
		/^```/ { if (on) exit; next }
		$0 == want { on = 1; next }
		on { print }' "$CI/README.md"
}

# fleet_ok DIR: three images patched into DIR/patched, three reports merged.
fleet_ok()
{
	for i in a b c; do
		test_file_unchanged "$1/images/$i.img" "$(cat kv.sum)" || return 1
	done &&
	kv260_patched "$1/patched/b.img" &&
	mtype -i "$(part_mtools "$1/patched/a.img" 1)" ::/user-override.dtb >/dev/null &&
	mtype -i "$(part_mtools "$1/patched/c.img" 1)" ::/user-override.dtb >/dev/null &&
	jq -r ".[] | [.image, .output, .status, .changes] | @tsv" "$1/fleet-report.json" | sort >got &&
	printf "images/%s.img\tpatched/%s.img\tpatched\t2\n" a a b b c c >expect &&
	test_cmp expect got
}

test_expect_success 'fleet, xargs -P: the README block runs as written' '
	fleet_block xargs >xargs.sh && test -s xargs.sh && grep "imgpatch apply" xargs.sh &&
	mkdir -p fx/images && for i in a b c; do cp kv.img fx/images/$i.img || return 1; done &&
	(cd fx && sh -e ../xargs.sh) &&
	fleet_ok fx
'

if command -v parallel >/dev/null; then
	test_expect_success 'fleet, GNU parallel: the README block runs as written (hosts: this machine)' '
		fleet_block parallel >parallel.sh && grep -- "--sshloginfile hosts" parallel.sh &&
		mkdir -p fp/images "$HOME/.parallel" && touch "$HOME/.parallel/will-cite" &&
		for i in a b c; do cp kv.img fp/images/$i.img || return 1; done &&
		echo : >fp/hosts &&
		(cd fp && sh -e ../parallel.sh) &&
		fleet_ok fp
	'
else
	test_skip_tool 'fleet, GNU parallel: the README block runs as written' parallel
fi

test_done
