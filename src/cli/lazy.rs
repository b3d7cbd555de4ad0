//! A command's arguments that clap builds only when that command is the one parsed.
//!
//! clap's derive builds the whole tree of every command and its arguments before it
//! reads a word of the command line, and drops it after: about 2.4 M instructions per
//! process, more than a whole `ready --json` spends on its own work. Each command's
//! arguments in [`super::commands::Command`] are wrapped in [`Lazy`], which hands clap
//! a function that adds them ([`clap::Command::defer`]) instead of adding them. clap
//! calls it when it builds that command: to parse its arguments or print its help.
//! The top level keeps every command's name and help line, so `--help` and the
//! suggestions for a mistyped command read as before. Completions and man pages read
//! the whole tree, including the copy of it under `help`, which clap makes before any
//! deferred command is built: they get the tree built at once ([`whole`]).

use std::sync::atomic::{AtomicBool, Ordering};

use clap::builder::{Resettable, StyledStr};
use clap::{ArgMatches, Args, Command, FromArgMatches, Subcommand};

/// The arguments (or subcommands) `T` of one command, added to it only when clap
/// builds that command.
#[derive(Debug)]
pub struct Lazy<T>(pub T);

/// Set while [`whole`] builds the tree: [`Lazy`] then adds its arguments at once.
static WHOLE: AtomicBool = AtomicBool::new(false);

/// What `build` returns, with every command's arguments added at once, as clap's
/// derive does: for completions and man pages. Parsing the same tree at the same time
/// elsewhere is harmless; it reads a command line the same either way.
pub fn whole<R>(build: impl FnOnce() -> R) -> R {
    WHOLE.store(true, Ordering::Relaxed);
    let built = build();
    WHOLE.store(false, Ordering::Relaxed);
    built
}

/// `add`, now for [`whole`], or when clap builds the command.
fn added(cmd: Command, add: fn(Command) -> Command, later: fn(Command) -> Command) -> Command {
    if WHOLE.load(Ordering::Relaxed) {
        add(cmd)
    } else {
        cmd.defer(later)
    }
}

/// Adds `add`'s arguments to `cmd`, keeping the help `cmd` already has: the command's
/// own lines come from its variant in the tree, which clap applies before this runs,
/// while an arguments struct's doc comment would otherwise take their place.
fn keeping_help(cmd: Command, add: fn(Command) -> Command) -> Command {
    let kept =
        |text: Option<&StyledStr>| text.cloned().map_or(Resettable::Reset, Resettable::Value);
    let about = kept(cmd.get_about());
    let long_about = kept(cmd.get_long_about());
    add(cmd).about(about).long_about(long_about)
}

impl<T: Args> Args for Lazy<T> {
    fn augment_args(cmd: Command) -> Command {
        added(cmd, T::augment_args, |cmd| {
            keeping_help(cmd, T::augment_args)
        })
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        added(cmd, T::augment_args_for_update, |cmd| {
            keeping_help(cmd, T::augment_args_for_update)
        })
    }

    fn group_id() -> Option<clap::Id> {
        T::group_id()
    }
}

impl<T: Subcommand> Subcommand for Lazy<T> {
    fn augment_subcommands(cmd: Command) -> Command {
        added(cmd, T::augment_subcommands, |cmd| {
            keeping_help(cmd, T::augment_subcommands)
        })
    }

    fn augment_subcommands_for_update(cmd: Command) -> Command {
        added(cmd, T::augment_subcommands_for_update, |cmd| {
            keeping_help(cmd, T::augment_subcommands_for_update)
        })
    }

    fn has_subcommand(name: &str) -> bool {
        T::has_subcommand(name)
    }
}

impl<T: FromArgMatches> FromArgMatches for Lazy<T> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches(matches).map(Lazy)
    }

    fn from_arg_matches_mut(matches: &mut ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches_mut(matches).map(Lazy)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(matches)
    }

    fn update_from_arg_matches_mut(&mut self, matches: &mut ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches_mut(matches)
    }
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::whole;
    use crate::cli::Cli;

    /// What the parser prints for `line` (help, or the error).
    fn printed(line: &[&str]) -> String {
        let args = std::iter::once("git-beads").chain(line.iter().copied());
        match Cli::try_parse_from(args) {
            Ok(_) => String::new(),
            Err(e) => e.render().to_string(),
        }
    }

    /// Every command's help (short and long), and an error in its arguments, print
    /// the same when clap builds the command late as when it builds the whole tree
    /// first, as its derive does.
    #[test]
    fn each_command_prints_what_the_whole_tree_prints() {
        let names: Vec<String> = Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_owned())
            .collect();
        assert!(names.len() > 40, "{names:?}");
        for name in &names {
            for line in [
                vec![name.as_str(), "--help"],
                vec![name.as_str(), "-h"],
                vec![name.as_str(), "--no-such-flag"],
                vec!["help", name.as_str()],
            ] {
                let late = printed(&line);
                assert!(!late.is_empty(), "{line:?}");
                assert_eq!(late, whole(|| printed(&line)), "{line:?}");
            }
        }
    }
}
