"""Shell completion for the ``frontier`` command, generated from its argument parser, so the
commands, the algorithms of the catalog, their options and the balancers' names complete without
anything installed: ``frontier completion bash`` prints a script.

Install with ``eval "$(frontier completion bash)"`` in ``~/.bashrc``, or
``eval "$(frontier completion zsh)"`` in ``~/.zshrc`` (zsh runs the bash script through
``bashcompinit``). Positional graph arguments complete file names.
"""

from __future__ import annotations

import argparse
import shlex

__all__ = ["SHELLS", "script", "command_tree"]

SHELLS = ("bash", "zsh")


def command_tree(parser: argparse.ArgumentParser, path: str = ""
                 ) -> dict[str, tuple[list[str], dict[str, list[str]], bool]]:
    """For every command path (``""``, ``"run"``, ``"run bfs"``, ...): the words that may come
    next (subcommands and options), the values of options that take known values, and whether a
    positional file argument is taken there."""
    words: list[str] = []
    values: dict[str, list[str]] = {}
    files = False
    tree: dict[str, tuple[list[str], dict[str, list[str]], bool]] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                words.append(name)
                tree.update(command_tree(sub, f"{path} {name}".strip()))
        elif action.option_strings:
            words += [o for o in action.option_strings if o.startswith("--")]
            known = action.choices or getattr(action, "completions", None)
            if known:
                for option in action.option_strings:
                    values[option] = [str(c) for c in known]
        else:
            files = True
    tree[path] = (words, values, files)
    return tree


def script(parser: argparse.ArgumentParser, shell: str = "bash") -> str:
    """The completion script for ``shell`` (one of :data:`SHELLS`)."""
    tree = command_tree(parser)
    prog = parser.prog
    steps, nexts, choices = [], [], []
    for path, (words, values, files) in sorted(tree.items()):
        for word in words:
            if not word.startswith("-"):
                steps.append(f'            {shlex.quote(f"{path} {word}")}) '
                             f'path={shlex.quote(f"{path} {word}".strip())} ;;')
        nexts.append(f"        {shlex.quote(path)}) words={shlex.quote(' '.join(words))}; "
                     f"files={int(files)} ;;")
        for option, known in values.items():
            choices.append(f"        {shlex.quote(f'{path}|{option}')}) "
                           f"words={shlex.quote(' '.join(known))}; files=0; done=1 ;;")
    fn = f"_{prog.replace('-', '_')}_complete"
    body = "\n".join([
        f"{fn}() {{",
        '    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"',
        '    local path="" words="" files=0 done=0 i',
        "    for ((i = 1; i < COMP_CWORD; i++)); do",
        '        case "$path ${COMP_WORDS[i]}" in',
        *steps,
        "        esac",
        "    done",
        '    case "$path|$prev" in',
        *choices,
        "    esac",
        '    if [ "$done" = 0 ]; then',
        '        case "$path" in',
        *nexts,
        "        esac",
        "    fi",
        '    COMPREPLY=($(compgen -W "$words" -- "$cur"))',
        '    if [ "$files" = 1 ] && [[ "$cur" != -* ]]; then',
        '        COMPREPLY+=($(compgen -f -- "$cur"))',
        "    fi",
        "}",
        f"complete -o filenames -F {fn} {prog}",
    ])
    if shell == "zsh":
        body = "autoload -U +X bashcompinit && bashcompinit\n" + body
    return body + "\n"
