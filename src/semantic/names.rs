//! Qualified names as written (`a::b<c::d>::f`): their components, qualifier and last name, and
//! whether a declaration's scope matches a written qualifier. One copy, for the semantic layer
//! and for the call graph's by-name lookups.

/// The `::`-separated components of a name, split outside template arguments
/// (`C<a::b>::f<int>` is `C<a::b>`, `f<int>`).
pub fn components(name: &str) -> Vec<&str> {
    let b = name.as_bytes();
    let (mut depth, mut start, mut i) = (0i32, 0, 0);
    let mut parts = Vec::new();
    while i < b.len() {
        match b[i] {
            b'<' => depth += 1,
            b'>' => depth -= 1,
            b':' if depth <= 0 && b.get(i + 1) == Some(&b':') => {
                parts.push(&name[start..i]);
                start = i + 2;
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    parts.push(&name[start..]);
    parts
}

/// Where the last of `components(name)` starts (0 when there is one component); without
/// building the vector `components` does (the typing asks for the last component of every
/// name it resolves).
fn last_start(name: &str) -> usize {
    let b = name.as_bytes();
    let (mut depth, mut start, mut i) = (0i32, 0, 0);
    while i < b.len() {
        match b[i] {
            b'<' => depth += 1,
            b'>' => depth -= 1,
            b':' if depth <= 0 && b.get(i + 1) == Some(&b':') => {
                start = i + 2;
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    start
}

/// A component without its template arguments or a `template` keyword.
pub fn bare(component: &str) -> &str {
    let c = component.trim();
    let c = c.strip_prefix("template ").unwrap_or(c).trim_start();
    c.split('<').next().unwrap_or(c).trim_end()
}

/// The last component of a name, bare.
pub fn last(name: &str) -> &str {
    bare(&name[last_start(name)..])
}

/// The bare non-empty components, all but the last.
pub fn qualifier(name: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = components(name)
        .into_iter()
        .map(bare)
        .filter(|p| !p.is_empty())
        .collect();
    parts.pop();
    parts
}

/// The qualifier as written, with its template arguments (`C<double>` of `C<double>::go`).
pub fn qualifier_text(name: &str) -> Option<&str> {
    let start = last_start(name);
    (start > 0).then(|| &name[..start - 2])
}

/// Does a declaration in `scope` match a mention qualified by `q` (the scope's trailing
/// components)?
pub fn scope_ends_with(scope: &[String], q: &[&str]) -> bool {
    q.len() <= scope.len()
        && scope[scope.len() - q.len()..]
            .iter()
            .zip(q)
            .all(|(s, q)| s == q)
}

/// `(qualifier components, name)` of a type text, template arguments dropped (empty components
/// left out: `::a::b` is `[a]`, `b`).
pub fn split_type(text: &str) -> (Vec<&str>, &str) {
    let base = text.split('<').next().unwrap_or(text).trim();
    let mut parts: Vec<&str> = base.split("::").filter(|p| !p.is_empty()).collect();
    let name = parts.pop().unwrap_or("");
    (parts, name)
}

/// The text after the last `::` before any template argument list (`a::B<c::D>` is `B`), as
/// written (not trimmed).
pub fn base_name(text: &str) -> &str {
    let base = text.split('<').next().unwrap_or(text);
    base.rsplit("::").next().unwrap_or(base)
}
