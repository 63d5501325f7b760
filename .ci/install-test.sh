#!/usr/bin/env bash
# The README's "Installing" section, run as written by a user with an empty home: cargo install
# from the checkout and from git, completions loaded lazily by bash-completion, man pages found
# by man. Needs bash-completion, zsh, fish and man-db (Debian packages; .ci/run installs them).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
rev="$(git -C "$root" rev-parse HEAD)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "install-test: $*" >&2; exit 1; }

# The toolchain and the crate cache stay the real user's; everything the README installs goes to a new home.
export RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
export HOME="$work/home"
mkdir -p "$HOME"
unset XDG_DATA_HOME BASH_COMPLETION_USER_DIR MANPATH

echo "== cargo install --locked --path ."
# --path builds in the checkout's target/, so this reuses CI's release build.
cargo install --quiet --locked --path "$root" --root "$work/from-path"
"$work/from-path/bin/sycl-analyzer" --version | grep -q "device table: DPC++ .*@" || fail "--version names no DPC++ source"

echo "== cargo install --locked --git (this commit)"
cargo install --quiet --locked --git "file://$root" --rev "$rev" --target-dir "$root/target" \
  --root "$work/from-git" sycl-analyzer
[ "$("$work/from-git/bin/sycl-analyzer" --version)" = "$("$work/from-path/bin/sycl-analyzer" --version)" ] ||
  fail "the two installs report different versions"

# The user's PATH, as ~/.profile sets it on Debian when ~/.local/bin exists.
mkdir -p "$HOME/.local/bin"
cp "$work/from-path/bin/sycl-analyzer" "$HOME/.local/bin/"
export PATH="$HOME/.local/bin:$PATH"

status=0
(cd "$root/examples/vector-math" && sycl-analyzer check >/dev/null) || status=$?
[ "$status" -eq 1 ] || fail "check of the example exited $status, expected 1"

echo "== completions, as the README installs them"
mkdir -p "${XDG_DATA_HOME:-$HOME/.local/share}/bash-completion/completions"
sycl-analyzer completions bash >"${XDG_DATA_HOME:-$HOME/.local/share}/bash-completion/completions/sycl-analyzer"
# A fresh bash with bash-completion loads the script on first use, as an interactive shell does.
words="$(bash --norc --noprofile -c '
  source /usr/share/bash-completion/bash_completion
  _completion_loader sycl-analyzer
  COMP_WORDS=(sycl-analyzer query ma); COMP_CWORD=2; COMP_LINE="sycl-analyzer query ma"; COMP_POINT=${#COMP_LINE}
  complete -p sycl-analyzer >/dev/null || exit 3
  func=$(complete -p sycl-analyzer | sed -n "s/.*-F \([^ ]*\).*/\1/p")
  "$func" sycl-analyzer ma query
  printf "%s\n" "${COMPREPLY[@]}"')" || fail "bash-completion did not load the installed script"
grep -qx "macros" <<<"$words" || fail "completing 'sycl-analyzer query ma' gave: $words"
# zsh and fish, with the README's lines, in this fresh home.
mkdir -p ~/.zfunc
sycl-analyzer completions zsh >~/.zfunc/_sycl-analyzer
mkdir -p ~/.config/fish/completions
sycl-analyzer completions fish >~/.config/fish/completions/sycl-analyzer.fish
found="$(zsh -f -c 'fpath=(~/.zfunc $fpath); autoload -Uz compinit; compinit -u -d "$HOME/.zcompdump"; print -r -- ${_comps[sycl-analyzer]}')" ||
  fail "zsh's compinit failed"
[ "$found" = "_sycl-analyzer" ] || fail "zsh's compinit did not bind the completion: '$found'"
words="$(fish -c 'complete -C "sycl-analyzer query ma"')" || fail "fish could not complete"
grep -q "^macros" <<<"$words" || fail "fish completing 'sycl-analyzer query ma' gave: $words"

echo "== man pages, as the README installs them"
sycl-analyzer man --dir "$HOME/.local/share/man/man1"
# man-db finds ~/.local/share/man from ~/.local/bin on PATH: no MANPATH needed.
page="$(man -w sycl-analyzer)" || fail "man does not find sycl-analyzer"
[ "$page" = "$HOME/.local/share/man/man1/sycl-analyzer.1" ] || fail "man found $page"
man -w sycl-analyzer-check >/dev/null || fail "man does not find sycl-analyzer-check"
MANWIDTH=100 man sycl-analyzer-check 2>/dev/null | grep -q -- "--format" || fail "the check page does not render"

echo "install-test: ok"
