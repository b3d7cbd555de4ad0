//! The `git-beads` binary: hands argv to the CLI and turns the result into an exit code.

// Every read decodes thousands of small values (the index, YAML documents) and every
// command is a short-lived process: mimalloc's allocations cost a fraction of glibc's.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    git_beads::cli::main()
}
