# SPDX-License-Identifier: MIT
# bash completion for imgpatch(1): commands, their options, recipe names and
# parameters, partitions and FIT device trees of the image on the line,
# --compress formats, customize's choices, and files. Installed as
# $(DATADIR)/bash-completion/completions/imgpatch, where bash-completion
# loads it on first use.

# The options of each command, as `imgpatch COMMAND --help` lists them
# (tests/t1160-completion.sh checks that they agree), and those of them
# that take an argument.
_imgpatch_io_opts='-o --output --compress --level --threads --bmap --in-place
	-n --dry-run --quiet --undo --recover'
# customize's settings, which write also takes for every card (custom-options.c);
# each takes an argument.
_imgpatch_custom_opts='--hostname --timezone --keymap --locale --user --password --ssh-inject
	--static-ip --gateway --dns --iface --wifi --wifi-psk-file --wifi-country
	--ssh-host-keys --machine-id
	--copy-in --upload --write --append-line --mkdir --chmod --delete --link --touch
	--enable --disable --mask --firstboot --firstboot-command'
_imgpatch_opts_info='--json --fit --model --help'
_imgpatch_opts_cat='--dtb --cmdline --model --fit --help'
_imgpatch_opts_patch="--fit --fdt --dt-delete --dt-set --dt-delete-node --overlay
	--via --model --dtb-out --fstab --root --cmdline $_imgpatch_io_opts -f --force --help"
_imgpatch_opts_apply="--set --each --each-ignore $_imgpatch_io_opts --recipe-path -j --jobs --json
	--output-dir --via --help"
_imgpatch_opts_customize="$_imgpatch_custom_opts $_imgpatch_io_opts --json --help"
_imgpatch_opts_write="--apply --set --each --each-ignore --recipe-path --json -j --jobs --dry-run --force
	--quiet $_imgpatch_custom_opts --help"
_imgpatch_opts_recipes='--json --recipe-path --help'
_imgpatch_opts_undo='--undo -f --force --help'
_imgpatch_opts_doctor='--json --fail-on --fit --fdt --model --help'

_imgpatch_args_info='--fit --model'
_imgpatch_args_cat='--model --fit'
_imgpatch_args_patch='--fit --fdt --dt-delete --dt-set --dt-delete-node --overlay
	--via --model --dtb-out --fstab --root --cmdline -o --output --compress --level --threads --bmap --undo'
_imgpatch_args_apply='--set --each --each-ignore -o --output --compress --level --threads --bmap --undo
	--recipe-path -j --jobs --json --output-dir --via'
_imgpatch_args_customize="$_imgpatch_custom_opts -o --output --compress --level --threads --bmap --undo
	--json"
_imgpatch_args_write="--apply --set --each --each-ignore --recipe-path --json -j --jobs
	$_imgpatch_custom_opts"
_imgpatch_args_recipes='--recipe-path'
_imgpatch_args_undo='--undo'
_imgpatch_args_doctor='--fail-on --fit --fdt --model'

_imgpatch_commands='info cat patch customize apply write recipes undo doctor'
_imgpatch_formats='xz gz zst bz2 lz4 none'

# _imgpatch_takes_arg CMD OPT: succeeds when OPT of CMD takes an argument.
_imgpatch_takes_arg()
{
	local var=_imgpatch_args_$1 o

	for o in ${!var}; do
		[[ $o == "$2" ]] && return 0
	done
	return 1
}

# _imgpatch_positionals: fills the array "pos" with the positional arguments
# of the command line before the word being completed (the command first).
_imgpatch_positionals()
{
	local i w skip=0

	pos=()
	for ((i = 1; i < cword; i++)); do
		w=${words[i]}
		if ((skip)); then
			skip=0
			continue
		fi
		case $w in
		--) ;;
		--*=*) ;;
		-*)
			((${#pos[@]})) && _imgpatch_takes_arg "${pos[0]}" "$w" && skip=1
			;;
		*) pos+=("$w") ;;
		esac
	done
}

# _imgpatch_raw IMAGE: succeeds when IMAGE can be read quickly (a raw image
# or a device): a compressed one would be unpacked whole for every TAB.
_imgpatch_raw()
{
	case $1 in
	*.xz | *.gz | *.zst | *.bz2 | *.lz4 | *.zip | *.7z | *.tar | *.tgz) return 1 ;;
	esac
	[[ -r $1 && (-f $1 || -b $1) ]]
}

# _imgpatch_info IMAGE: `imgpatch info --json IMAGE`, at most a few seconds.
_imgpatch_info()
{
	_imgpatch_raw "$1" || return 0
	if type -P timeout >/dev/null; then
		timeout 5 "$prog" info --json -- "$1" 2>/dev/null
	else
		"$prog" info --json -- "$1" 2>/dev/null
	fi
}

# _imgpatch_partitions IMAGE: "N:" and "NAME:" for every partition, by number,
# GPT name and filesystem label (what `cat` takes as PART).
_imgpatch_partitions()
{
	_imgpatch_info "$1" | sed -n '/^  "partitions": \[/,/^  \]/{
		s/^ *"number": \([0-9][0-9]*\),*$/\1:/p
		s/^ *"name": "\([^"\\]*\)",*$/\1:/p
		s/^ *"fslabel": "\([^"\\]*\)",*$/\1:/p
	}' | sed '/^:$/d' | sort -u
}

# _imgpatch_fdts IMAGE: the names of the FIT's device trees, for --fdt.
_imgpatch_fdts()
{
	_imgpatch_info "$1" | sed -n '/^  "fit": {/,/^  }/{
		/^ *"name": /h
		/^ *"type": "flat_dt"/{x;s/^ *"name": "\([^"\\]*\)",*$/\1/p;}
	}'
}

# _imgpatch_models IMAGE: the names cat --dtb --model takes, from info --json:
# each boot path tree's model, or its file where it has none; for a FIT the
# configurations (the boot script picks one, and it names the tree).
_imgpatch_models()
{
	_imgpatch_info "$1" | sed -n '/^  "boot_path": {/,/^  }/{
		s/^ *"model": "\([^"\\]*\)",*$/\1/p
		/^ *"model": null,*$/{n;s/^ *"path": "\([^"\\]*\)",*$/\1/p;}
	}
	/^    "configurations": \[/,/^    \]/{
		s/^ *"name": "\([^"\\]*\)",*$/\1/p
	}'
}

# _imgpatch_recipe_path: the --recipe-path arguments on the line, as options.
_imgpatch_recipe_path()
{
	local i

	rpath=()
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--recipe-path) rpath+=(--recipe-path "${words[i + 1]}") ;;
		--recipe-path=*) rpath+=("${words[i]}") ;;
		esac
	done
}

# _imgpatch_recipes: the recipe names, from `imgpatch recipes` ("NAME  summary").
_imgpatch_recipes()
{
	local rpath

	_imgpatch_recipe_path
	"$prog" recipes "${rpath[@]}" 2>/dev/null | sed -n 's/^\([^ ][^ ]*\)  .*/\1/p'
}

# _imgpatch_params RECIPE: "NAME=" for each parameter, or with a NAME=
# prefix in cur, "NAME=VALUE" for each value a parameter allows; from the
# "parameters:" part of `imgpatch recipes show RECIPE`.
_imgpatch_params()
{
	local rpath

	_imgpatch_recipe_path
	"$prog" recipes show "$1" "${rpath[@]}" 2>/dev/null | sed -n '/^parameters:$/,/^$/{
		s/^  \([A-Za-z0-9_.-][A-Za-z0-9_.-]*\) (\(.*\))$/\1 \2/p
	}' | while read -r name spec; do
		case $spec in
		*"one of: "*)
			spec=${spec#*one of: }
			spec=${spec%%;*}
			spec=${spec//,/}
			;;
		*) spec= ;;
		esac
		if [[ $cur == "$name="* ]]; then
			for v in $spec; do
				echo "$name=$v"
			done
		elif [[ $cur != *=* ]]; then
			echo "$name="
		fi
	done
}

_imgpatch()
{
	local cur prev words cword split=false prog cmd pos var

	if declare -F _init_completion >/dev/null; then
		_init_completion -s -n : || return
	else
		# Without bash-completion's helpers: plain words.
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
		cur=${words[cword]}
		prev=${words[cword - 1]}
		COMPREPLY=()
	fi
	# The program being completed answers the questions about recipes and
	# images (a build tree's imgpatch knows its own recipes); none when it
	# cannot be run.
	prog=${words[0]/#\~/$HOME}
	if [[ $prog == */* ]]; then
		[[ -x $prog ]] || prog=
	else
		type -P "$prog" >/dev/null || prog=
	fi

	if ((cword == 1)); then
		if [[ $cur == -* ]]; then
			_imgpatch_words '--help --version'
		else
			_imgpatch_words "$_imgpatch_commands"
		fi
		return
	fi
	cmd=${words[1]}
	var=_imgpatch_opts_$cmd
	[[ $cmd =~ ^[a-z]+$ && -n ${!var+set} ]] || return

	_imgpatch_positionals

	# The argument of an option.
	if [[ $prev == -* ]] && _imgpatch_takes_arg "$cmd" "$prev"; then
		case $prev in
		--compress)
			_imgpatch_words "$_imgpatch_formats"
			;;
		--fail-on)
			_imgpatch_words 'warning info'
			;;
		--via)
			_imgpatch_words 'override fit overlay file'
			;;
		--ssh-host-keys)
			_imgpatch_words 'new'
			;;
		--machine-id)
			_imgpatch_words 'new reset'
			;;
		--wifi-psk-file | --firstboot)
			_imgpatch_filedir
			;;
		--copy-in | --upload)
			# LOCAL:REMOTE: the local file or folder; the rest is the image's.
			[[ $cur == *:* ]] || _imgpatch_filedir
			;;
		--recipe-path | --output-dir)
			_imgpatch_filedir -d
			;;
		--fdt)
			[[ -n $prog && ${#pos[@]} -ge 2 ]] &&
				_imgpatch_words "$(_imgpatch_fdts "${pos[1]}")"
			;;
		--model)
			[[ -n $prog && ${#pos[@]} -ge 2 ]] &&
				_imgpatch_words "$(_imgpatch_models "${pos[1]}")"
			;;
		--apply)
			[[ $cur != */* && -n $prog ]] &&
				_imgpatch_words "$(_imgpatch_recipes)"
			_imgpatch_filedir recipe
			;;
		--each)
			_imgpatch_filedir csv
			;;
		--set)
			# apply's recipe is its first argument; write's are many.
			if [[ $cmd == apply && -n $prog && ${#pos[@]} -ge 2 ]]; then
				_imgpatch_words "$(_imgpatch_params "${pos[1]}")"
				[[ ${COMPREPLY[0]-} == *= ]] && _imgpatch_nospace
				_imgpatch_ltrim "="
			fi
			;;
		--overlay)
			_imgpatch_filedir dtbo
			;;
		-o | --output | --bmap | --undo | --json)
			_imgpatch_filedir
			;;
		esac
		return
	fi
	[[ $split == true ]] && return

	if [[ $cur == -* ]]; then
		_imgpatch_words "${!var}"
		return
	fi

	case $cmd in
	cat)
		# With --dtb there is no PART:PATH.
		if [[ " ${words[*]} " == *" --dtb "* ]]; then
			((${#pos[@]} == 1)) && _imgpatch_filedir
		elif ((${#pos[@]} == 2)) && [[ -n $prog ]]; then
			# PART:PATH: the partitions; the path is typed by hand.
			[[ $cur == *:* ]] && return
			_imgpatch_words "$(_imgpatch_partitions "${pos[1]}")"
			_imgpatch_nospace
		elif ((${#pos[@]} == 1)); then
			_imgpatch_filedir
		fi
		;;
	apply)
		if ((${#pos[@]} == 1)); then
			[[ $cur != */* && -n $prog ]] &&
				_imgpatch_words "$(_imgpatch_recipes)"
			_imgpatch_filedir recipe
		else
			_imgpatch_filedir
		fi
		;;
	recipes)
		if ((${#pos[@]} == 1)); then
			_imgpatch_words 'show'
		elif ((${#pos[@]} == 2)) && [[ ${pos[1]} == show ]]; then
			[[ $cur != */* && -n $prog ]] &&
				_imgpatch_words "$(_imgpatch_recipes)"
			_imgpatch_filedir recipe
		fi
		;;
	write)
		_imgpatch_filedir
		;;
	*)
		((${#pos[@]} == 1)) && _imgpatch_filedir
		;;
	esac
}

# _imgpatch_filedir [-d | EXT]: adds files (or directories, or files ending
# in .EXT and directories) to COMPREPLY.
_imgpatch_filedir()
{
	if declare -F _filedir >/dev/null; then
		_filedir "$@"
		return
	fi
	if [[ ${1-} == -d ]]; then
		mapfile -t -O ${#COMPREPLY[@]} COMPREPLY < <(compgen -d -- "$cur")
	else
		mapfile -t -O ${#COMPREPLY[@]} COMPREPLY < <(compgen -f -- "$cur")
	fi
}

# _imgpatch_words WORDS: the words of WORDS that begin with cur, into
# COMPREPLY (one a line from compgen, so no word is taken for a pattern).
_imgpatch_words()
{
	mapfile -t COMPREPLY < <(compgen -W "$1" -- "$cur")
}

# _imgpatch_ltrim CHAR: when bash breaks words at CHAR (':' and '=' by
# default, see COMP_WORDBREAKS), it replaces only the text after the last
# CHAR of cur: the candidates must not repeat what comes before.
_imgpatch_ltrim()
{
	local prefix i

	[[ $cur == *"$1"* && $COMP_WORDBREAKS == *"$1"* ]] || return 0
	prefix=${cur%"${cur##*"$1"}"}
	for i in "${!COMPREPLY[@]}"; do
		COMPREPLY[i]=${COMPREPLY[i]#"$prefix"}
	done
}

_imgpatch_nospace()
{
	type compopt >/dev/null 2>&1 && compopt -o nospace 2>/dev/null
	return 0
}

complete -F _imgpatch imgpatch
