#!/bin/bash
# SPDX-License-Identifier: MIT

test_description='bash and zsh completion: commands, options, recipes, parameters, partitions'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools zsh sfdisk fdtget mtype
BASH_COMPLETION=/usr/share/bash-completion/bash_completion
if [ ! -r "$BASH_COMPLETION" ]; then
	test_skip_tool 'bash-completion installed' bash-completion
	test_done
fi
BASH_COMP=$REPO_DIR/tool/completion/imgpatch.bash
ZSH_COMP=$REPO_DIR/tool/completion/_imgpatch
export BASH_COMPLETION BASH_COMP

# complete_line LINE: what bash would offer for LINE with the cursor at its end,
# one candidate a line, sorted: a fresh bash with bash-completion's helpers
# loaded sets COMP_WORDS as bash splits the line (at blanks, and with ':'
# and '=' words of their own, as COMP_WORDBREAKS says) and calls _imgpatch.
# The program on the line is the binary under test. NO_HELPERS=1 leaves out
# bash-completion, as for a user who sources the file by hand.
complete_line()
{
	local -; set +x

	bash --norc --noprofile -c '
		[ "${NO_HELPERS:-0}" = 1 ] || . "$BASH_COMPLETION" || exit 1
		. "$BASH_COMP" || exit 1
		COMP_LINE=$1
		COMP_POINT=${#COMP_LINE}
		COMP_WORDS=()
		rest=$COMP_LINE
		while [ -n "$rest" ]; do
			if [[ $rest =~ ^[[:space:]]+ ]]; then
				:
			elif [[ $rest =~ ^[:=]+ ]]; then
				COMP_WORDS+=("$BASH_REMATCH")
			else
				[[ $rest =~ ^[^[:space:]:=]+ ]]
				COMP_WORDS+=("$BASH_REMATCH")
			fi
			rest=${rest:${#BASH_REMATCH}}
		done
		[[ $COMP_LINE =~ [[:space:]]$ ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_WORDS[0]=$IMGPATCH
		COMP_LINE=$IMGPATCH${COMP_LINE#imgpatch}
		COMP_POINT=${#COMP_LINE}
		_imgpatch
		printf "%s\n" "${COMPREPLY[@]}"
	' complete "$1" | sed '/^$/d' | sort
}

# help_commands: the commands `imgpatch --help` lists, sorted.
help_commands()
{
	imgpatch --help | sed -n '/^Commands:$/,/^$/s/^  \([a-z][a-z0-9-]*\)  .*/\1/p' | sort
}

# help_options CMD: the long options `imgpatch CMD --help` prints, sorted.
help_options()
{
	imgpatch "$1" --help | grep -oE -- '--[a-z0-9]+(-[a-z0-9]+)*' | sort -u
}

have_command()
{
	imgpatch "$1" --help >/dev/null 2>&1
}

test_expect_success 'the bash completion parses and registers _imgpatch' '
	bash -n "$BASH_COMP" &&
	bash --norc --noprofile -c ". \"\$BASH_COMP\" && complete -p imgpatch" >reg &&
	grep -q -- "-F _imgpatch imgpatch" reg
'

test_expect_success 'bash: the commands are those of imgpatch --help' '
	help_commands >help.cmds &&
	complete_line "imgpatch " >cmds &&
	if ! have_command doctor; then
		echo "# note: imgpatch doctor --help fails, doctor left out" &&
		grep -vx doctor cmds >cmds.tmp && mv cmds.tmp cmds
	fi &&
	test_cmp help.cmds cmds &&
	complete_line "imgpatch re" >out &&
	echo recipes >expect &&
	test_cmp expect out &&
	complete_line "imgpatch --" >out &&
	printf "%s\n" --help --version >expect &&
	test_cmp expect out
'

for cmd in info cat patch customize apply write recipes undo doctor; do
	if [ "$cmd" = doctor ] && ! have_command doctor; then
		test_skip "bash: doctor options are those of its --help" \
			"imgpatch doctor --help fails: the command is not built yet"
		continue
	fi
	test_expect_success "bash: $cmd options are those of its --help" '
		help_options '"$cmd"' >expect &&
		complete_line "imgpatch '"$cmd"' --" >out &&
		test_cmp expect out
	'
done

test_expect_success 'bash: short options are offered too' '
	complete_line "imgpatch patch -" >out &&
	grep -qx -- -o out && grep -qx -- -n out && grep -qx -- -f out &&
	complete_line "imgpatch apply -" >out &&
	grep -qx -- -j out
'

test_expect_success 'bash: --compress formats are those --help names' '
	imgpatch patch --help | sed -n "s/^ *--compress FMT *output format: //p" |
		tr -s ", " "\n\n" | sed "s/^or\$//; /^\$/d" | sort >expect &&
	test -s expect &&
	complete_line "imgpatch patch x.img --compress " >out &&
	test_cmp expect out &&
	complete_line "imgpatch apply r x.img --compress=z" >out &&
	echo zst >expect &&
	test_cmp expect out
'

test_expect_success 'bash: customize choices, the same for write' '
	complete_line "imgpatch customize x.img --machine-id " >out &&
	printf "%s\n" new reset >expect &&
	test_cmp expect out &&
	complete_line "imgpatch write x.img t.img --ssh-host-keys " >out &&
	echo new >expect &&
	test_cmp expect out &&
	complete_line "imgpatch customize x.img --hostname " >out &&
	test_cmp /dev/null out
'

test_expect_success 'bash: recipe names for apply and recipes show' '
	for f in "$IMGPATCH_BUILD"/recipes/*.recipe; do
		basename "$f" .recipe
	done | sort >expect &&
	test -s expect &&
	complete_line "imgpatch apply " >out &&
	comm -23 expect out >missing &&
	test_cmp /dev/null missing &&
	complete_line "imgpatch apply kv" >out &&
	grep -x kv260-uhs out &&
	complete_line "imgpatch recipes " >out &&
	echo show >show && test_cmp show out &&
	complete_line "imgpatch recipes show " >out &&
	comm -23 expect out >missing &&
	test_cmp /dev/null missing
'

test_expect_success 'bash: recipes from --recipe-path on the line' '
	mkdir -p mine &&
	sed "s/^name = .*/name = \"my-board\"/" \
		"$IMGPATCH_BUILD/recipes/fstab-noatime.recipe" >mine/my-board.recipe &&
	imgpatch recipes show mine/my-board.recipe >/dev/null &&
	complete_line "imgpatch apply --recipe-path mine my" >out &&
	echo my-board >expect &&
	test_cmp expect out &&
	complete_line "imgpatch apply my" >out &&
	test_cmp /dev/null out
'

test_expect_success 'bash: --set parameters and values of the recipe on the line' '
	complete_line "imgpatch apply kv260-uhs x.img --set " >out &&
	printf "%s\n" board= carrier= >expect &&
	test_cmp expect out &&
	sed -n "/^param carrier/,/^}/s/.*values = {\\(.*\\)}.*/\\1/p" \
		"$IMGPATCH_BUILD/recipes/kv260-uhs.recipe" | tr -d "\" " | tr , "\n" |
		sort >values &&
	test -s values &&
	complete_line "imgpatch apply kv260-uhs x.img --set carrier=" >out &&
	test_cmp values out &&
	complete_line "imgpatch apply kv260-uhs x.img --set board=kv --set carrier=revB" >out &&
	echo revB >expect &&
	test_cmp expect out
'

test_expect_success 'a KV260 image (GPT) and an MBR one with logical partitions' '
	make_kv260 kv.img &&
	make_kv260 mbr.img --mbr
'

# The partitions of IMG as `cat` takes them: numbers, GPT names and
# filesystem labels, each with a colon; from sfdisk and blkid.
expected_parts()
{
	local -; set +x
	local img=$1 n off

	sfdisk -J "$img" | sed -n "s/.*\"node\": *\"$img\([0-9]*\)\".*/\1/p" | while read -r n; do
		echo "$n:"
		sfdisk --part-label "$img" "$n" 2>/dev/null | sed -n "s/.\+/&:/p"
		off=$(part_offset "$img" "$n") || continue
		blkid -p -O "$off" -s LABEL -o value "$img" 2>/dev/null | sed -n "s/.\+/&:/p"
	done | sort -u
}

test_expect_success 'bash: cat completes the partitions of the image (GPT)' '
	expected_parts kv.img >expect &&
	grep -x 1: expect && grep -x writable: expect &&
	complete_line "imgpatch cat kv.img " >out &&
	test_cmp expect out &&
	complete_line "imgpatch cat kv.img wr" >out &&
	echo writable: >expect &&
	test_cmp expect out &&
	complete_line "imgpatch cat kv.img writable:/e" >out &&
	test_cmp /dev/null out
'

test_expect_success 'bash: cat completes the partitions of the image (MBR, logical)' '
	expected_parts mbr.img >expect &&
	grep -x 5: expect &&
	complete_line "imgpatch cat mbr.img " >out &&
	test_cmp expect out
'

test_expect_success 'bash: --fdt completes the device trees of the FIT' '
	mtype -i "$(part_mtools kv.img 1)" ::image.fit >image.fit &&
	for node in $(fdtget -l image.fit /images); do
		[ "$(fdtget image.fit /images/$node type)" = flat_dt ] && echo "$node"
	done | sort >fdts &&
	test $(wc -l <fdts) = 5 &&
	complete_line "imgpatch patch kv.img --fdt " >out &&
	test_cmp fdts out &&
	complete_line "imgpatch patch --fdt fdt-smk-k26-revA-sck-kv-g-revB.dtb kv.img --dt-delete x --fdt fdt-smk-k26-revA-sck-kv" >out &&
	grep -c . out >n && echo 2 >two && test_cmp two n
'

test_expect_success 'a Raspberry Pi image (a tree per model) and an extlinux one (FDTDIR trees)' '
	"$FIXTURES/mkimage-rpi.sh" rpi.img &&
	"$FIXTURES/mkimage-extlinux.sh" ext.img &&
	$IMGPATCH info ext.img | sed -n "s/^  tree: \([^ ]*\).*/\1/p" | sort >ext-trees &&
	test $(wc -l <ext-trees) = 2
'

test_expect_success 'bash: cat --dtb --model completes the trees of the image' '
	printf "%s\n" pi4 pi5 >expect &&
	complete_line "imgpatch cat --dtb rpi.img --model " >out &&
	test_cmp expect out &&
	complete_line "imgpatch cat ext.img --dtb --model " >out &&
	test_cmp ext-trees out &&
	complete_line "imgpatch cat kv.img --dtb --model conf-smk-k26-revA-sck-kv" >out &&
	printf "%s\n" conf-smk-k26-revA-sck-kv-g-revA conf-smk-k26-revA-sck-kv-g-revB >expect &&
	test_cmp expect out &&
	for m in pi4 pi5; do
		$IMGPATCH cat rpi.img --dtb --model $m >/dev/null 2>&1 || return 1
	done &&
	$IMGPATCH cat kv.img --dtb --model conf-smk-k26-revA-sck-kv-g-revA >/dev/null
'

test_expect_success 'bash: image and file arguments complete file names' '
	mkdir files && cd files &&
	: >board.img && : >board.img.xz && : >notes && mkdir dir &&
	complete_line "imgpatch info b" >out &&
	printf "%s\n" board.img board.img.xz >expect &&
	test_cmp expect out &&
	complete_line "imgpatch undo --undo n" >out &&
	echo notes >expect &&
	test_cmp expect out &&
	complete_line "imgpatch apply --recipe-path " >out &&
	echo dir >expect &&
	test_cmp expect out &&
	NO_HELPERS=1 complete_line "imgpatch info bo" >out &&
	printf "%s\n" board.img board.img.xz >expect &&
	test_cmp expect out
'

test_expect_success 'bash: a compressed image is not unpacked to complete partitions' '
	cp kv.img kv.img.xz &&
	complete_line "imgpatch cat kv.img.xz " >out &&
	test_cmp /dev/null out
'

test_expect_success 'bash: works without bash-completion helpers' '
	NO_HELPERS=1 complete_line "imgpatch pa" >out &&
	echo patch >expect &&
	test_cmp expect out &&
	NO_HELPERS=1 complete_line "imgpatch info --j" >out &&
	echo --json >expect &&
	test_cmp expect out
'

test_expect_success 'zsh: the completion parses' '
	zsh -n "$ZSH_COMP" &&
	head -1 "$ZSH_COMP" >first &&
	echo "#compdef imgpatch" >expect &&
	test_cmp expect first
'

test_expect_success 'zsh: compinit finds and loads it for imgpatch' '
	mkdir -p zfunc && cp "$ZSH_COMP" zfunc/ &&
	zsh -f -c "
		fpath=(\$PWD/zfunc \$fpath)
		autoload -Uz compinit && compinit -u -d \$PWD/zcompdump || exit 1
		print -r -- \$_comps[imgpatch]
		autoload +X _imgpatch && whence -w _imgpatch
	" >zsh.out 2>zsh.err &&
	test_cmp /dev/null zsh.err &&
	printf "%s\n" _imgpatch "_imgpatch: function" >expect &&
	test_cmp expect zsh.out
'

# The zsh lines to complete; zsh_result N is what zsh offered for line N.
zsh_lines=(
	"imgpatch "
	"imgpatch info --" "imgpatch cat --" "imgpatch patch --" "imgpatch apply --"
	"imgpatch recipes --" "imgpatch undo --" "imgpatch doctor --"
	"imgpatch apply "
	"imgpatch apply kv260-uhs kv.img --set "
	"imgpatch apply kv260-uhs kv.img --set carrier="
	"imgpatch cat kv.img "
	"imgpatch patch kv.img --fdt "
	"imgpatch patch kv.img --compress "
	"imgpatch recipes show kv"
	"imgpatch doctor kv.img --fail-on "
	"imgpatch write --"
	"imgpatch cat --dtb rpi.img --model "
	"imgpatch customize --"
	"imgpatch customize kv.img --machine-id "
)

zsh_result()
{
	sort -u "zsh-out/$1"
}

# zcomp.zsh FPATH-DIR OUT-DIR LINE...: what zsh offers for each LINE, into
# OUT-DIR/1, OUT-DIR/2, ...: an interactive zsh on a pseudo-terminal loads
# compinit and completes each line with TAB, and a compadd wrapper writes
# down every match it is given. After each line the script waits for the
# output of a marker command (its echo has '<''D>', its output <D>). Keys
# that arrive while a command still runs wait in the terminal's line
# buffer, where ^U would erase the line: ^A^K clears it in the editor only.
cat >zcomp.zsh <<'END_OF_ZSH'
zmodload zsh/zpty || exit 1
fdir=$1 outdir=$2
shift 2
zpty z zsh -f -i || exit 1
sync() { local junk; zpty -w z "print -r -- '<''D>'"; zpty -r z junk '*<D>*' }
zpty -w z "fpath=(${(q)fdir} \$fpath); autoload -Uz compinit; compinit -u -d ${(q)outdir}/zcompdump"
zpty -w z 'compadd() { local -a m; if (( ${@[(I)-[OAD]*]} )); then builtin compadd "$@"; return; fi; builtin compadd -O m "$@"; (( $#m )) && print -rl -- ${^m} >>$OUTF; builtin compadd "$@"; }'
sync
n=0
for l in "$@"; do
	n=$((n + 1))
	: >$outdir/$n
	zpty -w z "OUTF=${(q)outdir}/$n"
	zpty -w -n z "$l"$'\t\C-a\C-k'
	sync
done
zpty -d z
END_OF_ZSH

test_expect_success 'zsh: completing on a terminal' '
	rm -rf zsh-out && mkdir zsh-out &&
	PATH=$IMGPATCH_BUILD:$PATH timeout 60 zsh -f zcomp.zsh "$PWD/zfunc" "$PWD/zsh-out" \
		"${zsh_lines[@]}" &&
	test -s zsh-out/1
'

test_expect_success 'zsh: the commands are those of imgpatch --help' '
	zsh_result 1 >zcmds &&
	if ! have_command doctor; then
		grep -vx doctor zcmds >zcmds.tmp && mv zcmds.tmp zcmds
	fi &&
	test_cmp help.cmds zcmds
'

n=1
for cmd in info cat patch apply recipes undo doctor; do
	n=$((n + 1))
	if [ "$cmd" = doctor ] && ! have_command doctor; then
		test_skip "zsh: doctor options are those of its --help" \
			"imgpatch doctor --help fails: the command is not built yet"
		continue
	fi
	test_expect_success "zsh: $cmd options are those of its --help" '
		help_options '"$cmd"' >expect &&
		zsh_result '"$n"' >out &&
		test_cmp expect out
	'
done

test_expect_success 'zsh: write options are those of its --help' '
	help_options write >expect &&
	zsh_result 17 >out &&
	test_cmp expect out
'

test_expect_success 'zsh: recipe names' '
	for f in "$IMGPATCH_BUILD"/recipes/*.recipe; do
		basename "$f" .recipe
	done | sort >expect &&
	zsh_result 9 >out &&
	comm -23 expect out >missing &&
	test_cmp /dev/null missing &&
	zsh_result 15 >out &&
	echo kv260-uhs >expect &&
	test_cmp expect out
'

test_expect_success 'zsh: --set parameters and values' '
	zsh_result 10 >out &&
	printf "%s\n" board carrier >expect &&
	test_cmp expect out &&
	zsh_result 11 >out &&
	test_cmp values out
'

test_expect_success 'zsh: cat completes the partitions of the image' '
	expected_parts kv.img | sed "s/:\$//" >expect &&
	zsh_result 12 >out &&
	test_cmp expect out
'

test_expect_success 'zsh: --fdt, --compress and --fail-on' '
	zsh_result 13 >out &&
	test_cmp fdts out &&
	printf "%s\n" bz2 gz lz4 none xz zst >expect &&
	zsh_result 14 >out &&
	test_cmp expect out &&
	printf "%s\n" info warning >expect &&
	zsh_result 16 >out &&
	test_cmp expect out
'

test_expect_success 'zsh: cat --dtb --model completes the trees of the image' '
	printf "%s\n" pi4 pi5 >expect &&
	zsh_result 18 >out &&
	test_cmp expect out
'

test_expect_success 'zsh: customize options are those of its --help, and its choices' '
	help_options customize >expect &&
	zsh_result 19 >out &&
	test_cmp expect out &&
	printf "%s\n" new reset >expect &&
	zsh_result 20 >out &&
	test_cmp expect out
'

test_done
