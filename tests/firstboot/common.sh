# SPDX-License-Identifier: MIT
#
# Sourced by build-rootfs.sh and mkimage.sh.
#
# as_root: the command prefix that unpacks a root with its files' owners:
# none for root, fakeroot for a user.
as_root=()
[ "$(id -u)" = 0 ] || as_root=(fakeroot --)

# need_tools TOOL...: exits 3, printing "missing: TOOL..." (which a test
# reports as a skip), when a TOOL is not there; fakeroot is needed only
# when not root.
need_tools()
{
	local t missing=()

	for t in "$@" ${as_root[0]:+fakeroot}; do
		command -v "$t" >/dev/null 2>&1 || missing+=("$t")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "missing: ${missing[*]}"
	exit 3
}
