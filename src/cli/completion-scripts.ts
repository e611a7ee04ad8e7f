/** Shell scripts that ask `cnv __complete` for candidates, so completion always matches this version. */
export const COMPLETION_SCRIPTS: Record<'bash' | 'zsh' | 'fish', string> = {
  bash: `# cnv completion for bash. Load with: source <(cnv completion bash)
_cnv_complete() {
  # The words as typed, from the line itself: bash splits COMP_WORDS at ':' too (COMP_WORDBREAKS),
  # and state keys hold colons (sk_live_demo@host:4010/contacts:/data/c.csv).
  local -a words
  if [ -n "\${COMP_LINE+x}" ]; then
    local line="\${COMP_LINE:0:\${COMP_POINT:-\${#COMP_LINE}}}"
    read -r -a words <<< "$line"
    case "$line" in *[[:space:]]) words+=("") ;; esac
  else
    words=("\${COMP_WORDS[@]:0:COMP_CWORD+1}")
  fi
  local cur="\${words[\${#words[@]}-1]}"
  local IFS=$'\\n'
  local candidates
  candidates=$(cnv __complete -- "\${words[@]:1}" 2>/dev/null)
  COMPREPLY=( $(compgen -W "$candidates" -- "$cur") )
  # bash replaces only what follows the word's last ':': give it the candidates from there.
  if [[ "$cur" == *:* && "\${COMP_WORDBREAKS:-:}" == *:* ]]; then
    local prefix="\${cur%"\${cur##*:}"}" i
    for i in "\${!COMPREPLY[@]}"; do COMPREPLY[$i]="\${COMPREPLY[$i]#"$prefix"}"; done
  fi
  if [ \${#COMPREPLY[@]} -eq 0 ]; then
    compopt -o default 2>/dev/null
    COMPREPLY=()
  fi
}
complete -F _cnv_complete cnv
`,
  zsh: `#compdef cnv
# cnv completion for zsh. Load with: source <(cnv completion zsh)
_cnv() {
  local -a candidates
  candidates=("\${(@f)$(cnv __complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  if (( \${#candidates[@]} )) && [[ -n "\${candidates[1]}" ]]; then
    compadd -- "\${candidates[@]}"
  else
    _files
  fi
}
compdef _cnv cnv
`,
  // -f: fish adds no file names of its own; the function offers them only where cnv has no values
  // (a file flag, an argument without a list), as bash and zsh fall back to files.
  fish: `# cnv completion for fish. Load with: cnv completion fish | source
function __cnv_complete
    set -l tokens (commandline -opc) (commandline -ct)
    set -l candidates (cnv __complete -- $tokens[2..-1] 2>/dev/null)
    if test (count $candidates) -gt 0
        printf '%s\\n' $candidates
    else
        __fish_complete_path (commandline -ct)
    end
end
complete -c cnv -f -a '(__cnv_complete)'
`,
};
