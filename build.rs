//! Links the `git-beads` binary at a fixed address (not position-independent): the
//! linker then resolves its ~29 000 relative relocations once, at link time, instead
//! of the dynamic loader at every start (about 1 ms of each command). Binaries only:
//! proc-macros, the library and the test harnesses link as before.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-link-arg-bins=-no-pie");
}
