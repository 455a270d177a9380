#!/bin/bash
# SPDX-License-Identifier: MIT

test_description='libimgpatch.a keeps no mutable state of its own: a run'"'"'s hooks, caches and counters live in its context and handles'
. "$(dirname "$0")/lib.sh"

test_require_tools objdump

# The unsanitized build's library: the sanitizers add writable objects of
# their own; the sources are the same.
lib=${IMGPATCH_PLAIN_BUILD:-$IMGPATCH_BUILD}/libimgpatch.a

# Every object in a writable section (.data, .bss, their thread-local and
# relocated forms; not .data.rel.ro, which is read-only once loaded), by
# file and name. Each one left has its reason:
#  - log.o errmsg, errname: the failure text, per thread and per call as
#    errno is (imgp_errmsg);
#  - tempfiles.o temps: the temporary-file list the signal handler removes;
#  - formats.o choices, choices_once: a constant text made once
#    (pthread_once);
#  - fs-ext.o ext_et_once: libext2fs's error table, registered once;
#  - io-capture.o capture_manager, imgp_capture_io_manager_: libext2fs
#    takes an I/O manager by non-const pointer; nothing writes it.
cat >want <<'LIST'
formats.o choices
formats.o choices_once
fs-ext.o ext_et_once
io-capture.o capture_manager
io-capture.o imgp_capture_io_manager_
log.o errmsg
log.o errname
tempfiles.o temps
LIST

test_expect_success 'the library was built' '
	test -s "$lib"
'

test_expect_success 'its writable objects are the listed ones, each with its reason' '
	objdump -t "$lib" >symbols &&
	awk "/^In archive/ { next } /file format/ { f = \$1; sub(/:\$/, \"\", f); next }
	     NF >= 5 && \$(NF - 2) ~ /^\\.(t?bss|t?data)(\\.|\$)/ && \$(NF - 2) !~ /^\\.data\\.rel\\.ro/ &&
	     \$NF !~ /^\\./ { print f, \$NF }" symbols | sort -u >have &&
	test_cmp want have
'

test_done
