/** Shell scripts that ask `cnv __complete` for candidates, so completion always matches this version. */
export const COMPLETION_SCRIPTS: Record<'bash' | 'zsh' | 'fish', string> = {
  bash: `# cnv completion for bash. Load with: source <(cnv completion bash)
_cnv_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  local IFS=$'\\n'
  local candidates
  candidates=$(cnv __complete -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
  COMPREPLY=( $(compgen -W "$candidates" -- "$cur") )
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
  fish: `# cnv completion for fish. Load with: cnv completion fish | source
function __cnv_complete
    set -l tokens (commandline -opc) (commandline -ct)
    cnv __complete -- $tokens[2..-1] 2>/dev/null
end
complete -c cnv -a '(__cnv_complete)'
`,
};
