//! `git beads completions SHELL`: a completion script generated from the clap definitions.

use crate::cli::{error::CliError, output::Out};

/// The shells completions are made for.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shell {
    /// bash (with git's own completion, `git beads <TAB>` completes too).
    Bash,
    /// zsh.
    Zsh,
    /// fish.
    Fish,
}

/// Arguments of `completions`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Install, for example:\n  \
    mkdir -p ~/.local/share/bash-completion/completions && git beads completions bash > ~/.local/share/bash-completion/completions/git-beads\n  \
    mkdir -p ~/.zfunc && git beads completions zsh > ~/.zfunc/_git-beads   # with fpath+=(~/.zfunc) in ~/.zshrc\n  \
    mkdir -p ~/.config/fish/completions && git beads completions fish > ~/.config/fish/completions/git-beads.fish")]
pub struct Args {
    /// The shell to complete for.
    pub shell: Shell,
}

/// The name the scripts complete: the binary as a shell sees it. `git beads …` is
/// completed through git's completion, which hands over to it.
const BIN: &str = "git-beads";

/// bash: git's completion (git-completion.bash) completes `git beads …` by calling
/// `_git_beads` with its own `words`/`cword`; hand those to the generated function.
const BASH_GIT_BRIDGE: &str = r#"
# `git beads <TAB>`: git's bash completion calls _git_beads; hand over to the above.
_git_beads() {
    local COMP_WORDS=(git-beads "${words[@]:2}")
    local COMP_CWORD=$((cword - 1))
    _gitbeads git-beads "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
}
"#;

/// The name bash scripts are generated for: clap_complete names the case labels of a
/// hyphenated binary's subcommands inconsistently (`git__beads` against
/// `git__subcmd__beads__subcmd__dep`), so the script is made for a name without one and
/// then registered for `git-beads`.
const BASH_NAME: &str = "gitbeads";

/// The completion script for `shell`.
pub fn script(shell: Shell) -> String {
    // The tree's own bin name is `git beads`; the subcommands' names must derive from
    // the name the script is generated for.
    let mut cmd = crate::cli::command().bin_name(BIN);
    let mut buf = Vec::new();
    match shell {
        Shell::Bash => {
            let mut cmd = cmd.bin_name(BASH_NAME);
            clap_complete::generate(clap_complete::Shell::Bash, &mut cmd, BASH_NAME, &mut buf);
            let text = String::from_utf8_lossy(&buf)
                .replace(&format!(" {BASH_NAME}\n"), &format!(" {BIN}\n"));
            return text + BASH_GIT_BRIDGE;
        }
        Shell::Zsh => clap_complete::generate(clap_complete::Shell::Zsh, &mut cmd, BIN, &mut buf),
        Shell::Fish => clap_complete::generate(clap_complete::Shell::Fish, &mut cmd, BIN, &mut buf),
    }
    String::from_utf8_lossy(&buf).into_owned()
}

/// Runs `completions`: the script goes to stdout.
pub fn run(args: Args, out: &mut Out) -> Result<(), CliError> {
    out.verbatim(script(args.shell).trim_end())
}
