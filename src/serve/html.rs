//! The pieces every page is made of: the one escape function every value from the
//! store goes through, the page around the content, and small shared parts.

use std::fmt::Write;

use crate::model::Timestamp;

/// `s` as HTML text or a quoted attribute value: `&`, `<`, `>`, `"` and `'` escaped.
/// Every value that comes from the store goes through here.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `s` percent-encoded for a path segment or a query value (the result is plain
/// ASCII with nothing HTML needs escaped).
pub fn url_part(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char);
            }
            b => {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}

/// A whole page: the head (CSRF token in a meta tag), the navigation, `body`.
pub fn page(title: &str, csrf: &str, body: &str) -> String {
    let mut out = String::with_capacity(body.len() + 1024);
    let _ = write!(
        out,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"csrf-token\" content=\"{csrf}\">\
         <title>{title} · git beads</title>\
         <link rel=\"stylesheet\" href=\"/assets/board.css\">\
         <script src=\"/assets/board.js\" defer></script></head><body>\
         <nav><b>git beads</b> <a href=\"/\">board</a> <a href=\"/agents\">agents</a> \
         <a href=\"/molecules\">molecules</a> <a href=\"/mail\">mail</a> \
         <a href=\"/log\">log</a> <span id=\"live\" title=\"live updates\">●</span></nav>\
         <main>{body}</main></body></html>",
        csrf = esc(csrf),
        title = esc(title),
    );
    out
}

/// A form that posts to `action` with the CSRF token; `fields` is its inner HTML.
pub fn form(action: &str, csrf: &str, fields: &str) -> String {
    format!(
        "<form method=\"post\" action=\"{}\"><input type=\"hidden\" name=\"csrf\" value=\"{}\">{fields}</form>",
        esc(action),
        esc(csrf)
    )
}

/// A table of named fields, a row at a time; each value is HTML already (escaped).
#[derive(Default)]
pub struct Fields(String);

impl Fields {
    /// Adds the row `key`: `value`.
    pub fn add(&mut self, key: &str, value: impl AsRef<str>) {
        let _ = write!(
            self.0,
            "<tr><th>{}</th><td>{}</td></tr>",
            esc(key),
            value.as_ref()
        );
    }

    /// The table.
    pub fn finish(self) -> String {
        format!("<table class=\"fields\">{}</table>", self.0)
    }
}

/// A link to bead `id`.
pub fn bead_link(id: &str) -> String {
    format!(
        "<a class=\"id\" href=\"/bead/{}\">{}</a>",
        url_part(id),
        esc(id)
    )
}

/// A link to session `id`.
pub fn session_link(id: &str) -> String {
    format!("<a href=\"/session/{}\">{}</a>", url_part(id), esc(id))
}

/// A time as every page writes it (UTC, to the second).
pub fn time(t: &Timestamp) -> String {
    esc(&t.format("%Y-%m-%d %H:%M:%S").to_string())
}

/// How long ago `t` was, in the largest whole unit.
pub fn age(t: &Timestamp, now: &Timestamp) -> String {
    let secs = (*now - *t).num_seconds().max(0);
    match secs {
        s if s < 120 => format!("{s}s"),
        s if s < 7200 => format!("{}m", s / 60),
        s if s < 172_800 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

/// A bar `done` of `total` full, with a label.
pub fn bar(done: f64, total: f64, label: &str) -> String {
    let pct = if total > 0.0 {
        (done / total * 100.0).clamp(0.0, 100.0)
    } else {
        0.0
    };
    format!(
        "<div class=\"bar\" title=\"{label}\"><div style=\"width:{pct:.1}%\"></div><span>{label}</span></div>",
        label = esc(label)
    )
}

/// An error page's body.
pub fn error_body(message: &str) -> String {
    format!(
        "<h1>Cannot do that</h1><p class=\"error\">{}</p>",
        esc(message)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            esc(r#"<img src=x onerror="alert('1')">&"#),
            "&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp;"
        );
    }

    #[test]
    fn encodes_url_parts() {
        assert_eq!(url_part("a b/ü&"), "a%20b%2F%C3%BC%26");
    }
}
