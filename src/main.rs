//! The `git-beads` binary: hands argv to the CLI and turns the result into an exit code.

fn main() -> std::process::ExitCode {
    git_beads::cli::main()
}
