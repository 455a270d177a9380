# SPDX-License-Identifier: MIT
# imgpatch-native and nativesdk-imgpatch link libconfuse: meta-oe's recipe
# has these variants from styhead on, meta-networking's (scarthgap) does not.
# The same value as meta-oe's, so nothing changes where it is set already.
# nooelint: oelint.vars.noncoreoverride - adds variants, the target recipe is unchanged
BBCLASSEXTEND = "native nativesdk"
