//! The configuration `git -c key=value beads …` hands down in `GIT_CONFIG_PARAMETERS`.
//!
//! git passes `-c` settings to the commands it runs through that variable; gix does not
//! read it, so without this `git -c user.name=… beads create` would ignore the identity
//! git itself would use.

/// The settings in `GIT_CONFIG_PARAMETERS`, as `key=value` (or a bare `key` for an
/// implicit true), in the order given. A malformed variable yields what parsed before
/// the fault: git itself refuses to run with a malformed one, so this is never reached
/// from `git beads`.
pub(crate) fn from_env() -> Vec<String> {
    std::env::var("GIT_CONFIG_PARAMETERS")
        .map(|raw| parse(&raw))
        .unwrap_or_default()
}

/// Parses the variable's value: entries separated by white space, each either
/// `'key=value'` (old style) or `'key'='value'` / `'key'=` (new style), quoted the way
/// git's `sq_quote` quotes (`'` written as `'\''`, `!` as `'\!'`).
pub(crate) fn parse(raw: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = raw.trim_start();
    while !rest.is_empty() {
        let Some((key, after)) = dequote(rest) else {
            break;
        };
        match after.chars().next() {
            None => {
                out.push(key);
                break;
            }
            Some(c) if c.is_whitespace() => out.push(key),
            Some('=') => {
                let after_eq = &after[1..];
                match after_eq.chars().next() {
                    Some('\'') => {
                        let Some((value, tail)) = dequote(after_eq) else {
                            break;
                        };
                        if tail.chars().next().is_some_and(|c| !c.is_whitespace()) {
                            break;
                        }
                        out.push(format!("{key}={value}"));
                        rest = tail.trim_start();
                        continue;
                    }
                    None => {
                        out.push(key);
                        break;
                    }
                    Some(c) if c.is_whitespace() => out.push(key),
                    Some(_) => break,
                }
                rest = after_eq.trim_start();
                continue;
            }
            Some(_) => break,
        }
        rest = after.trim_start();
    }
    out
}

/// Reads one single-quoted word at the start of `s`; returns it and what follows.
fn dequote(s: &str) -> Option<(String, &str)> {
    let mut chars = s.char_indices();
    if chars.next()?.1 != '\'' {
        return None;
    }
    let mut word = String::new();
    let mut quoted = true;
    while let Some((i, c)) = chars.next() {
        if quoted {
            if c == '\'' {
                quoted = false;
            } else {
                word.push(c);
            }
            continue;
        }
        // Between quotes: `\'` or `\!` then a reopening quote continues the word.
        if c == '\\' {
            let (_, escaped) = chars.next()?;
            let (_, reopen) = chars.next()?;
            if !matches!(escaped, '\'' | '!') || reopen != '\'' {
                return None;
            }
            word.push(escaped);
            quoted = true;
            continue;
        }
        return Some((word, &s[i..]));
    }
    (!quoted).then_some((word, ""))
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn new_and_old_styles() {
        assert_eq!(
            parse("'user.name'='Agent Smith' 'user.email'='a@b'"),
            ["user.name=Agent Smith", "user.email=a@b"]
        );
        assert_eq!(parse("'user.name=old style'"), ["user.name=old style"]);
        assert_eq!(
            parse("'core.bare'= 'x.y' 'a.b'='c'"),
            ["core.bare", "x.y", "a.b=c"]
        );
        assert_eq!(parse(""), Vec::<String>::new());
    }

    #[test]
    fn quotes_and_bangs() {
        assert_eq!(
            parse(r"'user.name'='O'\''Brien'\!'' 'k.v'='a b'"),
            ["user.name=O'Brien!", "k.v=a b"]
        );
    }

    #[test]
    fn stops_at_garbage() {
        assert_eq!(parse("'a.b'='c' nonsense"), ["a.b=c"]);
        assert_eq!(parse("'a.b'='c'x"), Vec::<String>::new());
        assert_eq!(parse("'unterminated"), Vec::<String>::new());
    }
}
