#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='malformed inputs (tests/bad/): one clean error line, the right exit status, the target byte-identical'
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/bad/helpers.sh"

test_require_imgpatch
test_require_tools sfdisk mkfs.vfat mcopy mdel mmd mshowfat mke2fs debugfs \
	mkimage dtc fdtput fdtget python3 xxd gzip od

export IMGPATCH_RECIPE_PATH=$IMGPATCH_BUILD/recipes
BAD_CACHE=$TEST_OUT/fixtures

# The images are 65-117 MiB; openssl hashes them several times faster than
# coreutils' sha256sum, which is the fallback.
if command -v openssl >/dev/null 2>&1; then
	bad_sum()
	{
		local -; set +x
		local sum

		sum=$(openssl dgst -sha256 -r <"$1") || return 1
		echo "${sum%% *}"
	}
else
	bad_sum()
	{
		sum_file "$1"
	}
fi

# run_case GENERATOR: builds the input in a fresh directory, runs imgpatch
# on it and checks status, message and the target's bytes.
run_case()
{
	local gen=$1 dir rc before after
	local -a CMD=() lines=()
	local TARGET= STATUS= EXPECT=

	dir=$TEST_OUT/$(basename "$gen" .sh)
	rm -rf "$dir" && mkdir "$dir" && cd "$dir" || return 1
	. "$gen"
	set +x
	if [ ${#CMD[@]} = 0 ] || [ -z "$TARGET" ] || [ -z "$STATUS" ] ||
	   [ -z "$EXPECT" ]; then
		echo "generator $gen did not set CMD, TARGET, STATUS and EXPECT"
		return 1
	fi
	before=$(bad_sum "$TARGET") || return 1
	echo "\$ imgpatch ${CMD[*]}"
	imgpatch "${CMD[@]}" >out 2>err && rc=0 || rc=$?
	echo "exit $rc, stderr:"
	cat err
	after=$(bad_sum "$TARGET") || return 1

	if [ "$rc" != "$STATUS" ]; then
		echo "FAIL: want exit $STATUS, got $rc$(
			bad=$(_tl_bad_status "$rc"); [ -z "$bad" ] || echo " ($bad)")"
		return 1
	fi
	# Warnings may come before the error; a usage error ends in git's
	# "Try 'imgpatch CMD --help'." line.
	mapfile -t lines < <(grep -v -e '^imgpatch: warning: ' \
		-e "^Try 'imgpatch [a-z ]*--help'\.\$" err)
	if [ ${#lines[@]} != 1 ]; then
		echo "FAIL: want one error line on stderr, got ${#lines[@]}"
		return 1
	fi
	case "${lines[0]}" in
	"imgpatch: "*) ;;
	*) echo "FAIL: the error line does not start with 'imgpatch: '"; return 1 ;;
	esac
	if ! grep -qE -- "$EXPECT" <<<"${lines[0]}"; then
		echo "FAIL: the error line does not match: $EXPECT"
		return 1
	fi
	if [ "$before" != "$after" ]; then
		echo "FAIL: $TARGET changed ($before -> $after)"
		return 1
	fi
	cd "$TEST_OUT" && rm -rf "$dir"
}

# BAD_CASES=TEXT runs only the cases whose file name contains TEXT.
for gen in "$TEST_DIR"/bad/[0-9]*.sh; do
	case "$(basename "$gen")" in *"${BAD_CASES:-}"*) ;; *) continue ;; esac
	test_expect_success "$(basename "$gen" .sh)" "run_case '$gen'"
done

test_done
