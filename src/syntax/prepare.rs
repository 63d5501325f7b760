//! A textual pass before parsing. It finds the SYCL attributes and macros that tree-sitter-cpp
//! cannot read in place (`SYCL_EXTERNAL void f()` parses as a type named `SYCL_EXTERNAL`; an
//! attribute after a lambda's capture list is an ERROR), records them, and blanks them with
//! spaces. It reads preprocessed text: the macros of the SYCL headers, which the preprocessor
//! does not see, are handled here. Blanking keeps every byte offset and newline, so positions in the parsed text are
//! positions in the file.

use crate::text::TextRange;

mod frameworks;
pub use frameworks::{Instances, TestCase};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrKind {
    /// `[[sycl::device_has(...)]]`, `[[sycl::requires(...)]]`, `[[sycl::requires(has(...))]]`.
    DeviceHas,
    /// `SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((device_has<...>))`.
    DeviceHasProperty,
    /// `[[__sycl_detail__::__uses_aspects__(...)]]`, `[[sycl_detail::uses_aspects(...)]]`.
    UsesAspects,
    /// `[[sycl::reqd_sub_group_size(N)]]`, `[[intel::reqd_sub_group_size(N)]]`.
    ReqdSubGroupSize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawAttr {
    pub kind: AttrKind,
    /// The attribute itself (`sycl::device_has(...)`), for locating diagnostics.
    pub range: TextRange,
    /// Top-level arguments, trimmed, with their ranges.
    pub args: Vec<(String, TextRange)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prepared {
    pub text: String,
    pub attrs: Vec<RawAttr>,
    /// Offsets of `SYCL_EXTERNAL` tokens.
    pub sycl_external: Vec<usize>,
    /// Offsets of `unsigned`, `signed`, `long`, `short` used as a functional cast
    /// (`(unsigned(x))`): see [`keyword_cast`].
    pub keyword_casts: Vec<usize>,
    /// Test cases of frameworks whose macros are unknown, their heads rewritten into
    /// `NAME() {`: see [`frameworks`].
    pub test_cases: Vec<TestCase>,
}

impl Prepared {
    /// The bytes to parse: the text, with each keyword of `keyword_casts` capitalised into an
    /// identifier (`Unsigned(x)`), which tree-sitter-cpp parses as the call it reads when the
    /// keyword cannot start a type there. The walks read `text`, so they see `unsigned`.
    pub fn parse_text(&self) -> std::borrow::Cow<'_, [u8]> {
        if self.keyword_casts.is_empty() {
            return self.text.as_bytes().into();
        }
        let mut out = self.text.as_bytes().to_vec();
        for &at in &self.keyword_casts {
            out[at] = out[at].to_ascii_uppercase();
        }
        out.into()
    }
}

/// Declaration specifiers and type words before which a keyword followed by `(` belongs to a
/// declaration (`unsigned long (x);`, `operator long()`), not to a functional cast.
const BEFORE_A_DECLARATOR: [&str; 21] = [
    "signed",
    "unsigned",
    "long",
    "short",
    "int",
    "char",
    "double",
    "float",
    "const",
    "volatile",
    "static",
    "constexpr",
    "extern",
    "inline",
    "typedef",
    "register",
    "mutable",
    "thread_local",
    "operator",
    "virtual",
    "friend",
];

/// Whether the word at `bytes[i..end]` is `unsigned`, `signed`, `long` or `short` written as a
/// functional cast (`unsigned(x)`, [expr.type.conv]). tree-sitter-cpp has no such expression:
/// where the keyword may start a type (after `(`, first in braces) it reads `(unsigned(x))` as a
/// C cast to a function type and recovers with ERROR nodes, losing `x` and at times the
/// statement after it, or `R<unsigned> r{{unsigned(x)}}` as an expression. Not a cast: a
/// declarator in parentheses (`long (*f)(int)`, `unsigned(&)[4]`, `long()`) or a keyword
/// after a declaration specifier.
fn keyword_cast(bytes: &[u8], i: usize, end: usize) -> bool {
    if !matches!(&bytes[i..end], b"unsigned" | b"signed" | b"long" | b"short") {
        return false;
    }
    let open = skip_ws(bytes, end);
    if bytes.get(open) != Some(&b'(') {
        return false;
    }
    let inner = skip_ws(bytes, open + 1);
    if matches!(bytes.get(inner), None | Some(b'*' | b'&' | b'^' | b')')) {
        return false;
    }
    let mut k = i;
    while k > 0 && bytes[k - 1].is_ascii_whitespace() {
        k -= 1;
    }
    let mut w = k;
    while w > 0 && is_ident(bytes[w - 1]) {
        w -= 1;
    }
    !BEFORE_A_DECLARATOR
        .iter()
        .any(|d| d.as_bytes() == &bytes[w..k])
}

/// Whether the word at `bytes[i..end]` is the `template` disambiguator of a member or qualified
/// name with no template argument list after it (`h.template parallel_for(r, k)`,
/// `p->template get(x)`, `T::template f(x)`). [temp.names]/6 wants an argument list there, but
/// DPC++ 2024 compiles such a call as if the keyword were absent. tree-sitter-cpp
/// expects `<` after such a name and leaves `.template parallel_for` an ERROR beside the
/// receiver, so the call has no name; blanked, it is the ordinary member call it names. With a
/// `<` the keyword stays: it is what makes `x.template get<N + 1>(a)` parse as a call.
fn bare_template_keyword(bytes: &[u8], i: usize, end: usize) -> bool {
    if &bytes[i..end] != b"template" {
        return false;
    }
    let before = bytes[..i].trim_ascii_end();
    if !(before.ends_with(b".") || before.ends_with(b"->") || before.ends_with(b"::")) {
        return false;
    }
    let name = skip_ws(bytes, end);
    if !bytes.get(name).copied().is_some_and(is_ident_start) {
        return false;
    }
    let name_end = ident_end(bytes, name);
    &bytes[name..name_end] != b"operator" && bytes.get(skip_ws(bytes, name_end)) != Some(&b'<')
}

/// The braces of a parameter's default argument written as a braced list (`sycl::id<D> o = {}`
/// before `,` or `)`, [dcl.fct.default]), for the `=` at `eq`. In a member function template
/// whose first parameter could be read as an expression (`h(c<D> r, d<D> o = {})`)
/// tree-sitter-cpp takes the declarator for a variable initialised with an argument list and
/// the body for an ERROR, losing the function. The parser is given `0` in its place: any
/// default argument counts the same ([over.match.viable]/2), and its value is never typed.
/// Only a name after a type's last token (a name, `>`, `&`, `*`) qualifies: an assignment in
/// an argument list (`f(x = {})`) does not.
fn braced_default(bytes: &[u8], eq: usize) -> Option<(usize, usize)> {
    if bytes.get(eq + 1) == Some(&b'=') {
        return None;
    }
    let open = skip_ws(bytes, eq + 1);
    if bytes.get(open) != Some(&b'{') {
        return None;
    }
    let head = bytes[..eq].trim_ascii_end();
    let name = head.len() - head.iter().rev().take_while(|&&b| is_ident(b)).count();
    if !head.get(name).copied().is_some_and(is_ident_start) {
        return None;
    }
    let ty = bytes[..name].trim_ascii_end().last().copied();
    if !ty.is_some_and(|b| is_ident(b) || matches!(b, b'>' | b'&' | b'*')) {
        return None;
    }
    let close = matching(bytes, open, b'{', b'}')?;
    matches!(bytes.get(skip_ws(bytes, close + 1)), Some(b',' | b')')).then_some((open, close + 1))
}

/// Object-like macros that expand to nothing in practice and break declarations when parsed.
const BLANKED_TOKENS: [&str; 4] = [
    "__restrict__",
    "__restrict",
    "SYCL_ESIMD_FUNCTION",
    "SYCL_ESIMD_KERNEL",
];

pub fn prepare(src: &str) -> Prepared {
    let bytes = src.as_bytes();
    let mut out = bytes.to_vec();
    let mut attrs = Vec::new();
    let mut sycl_external = Vec::new();
    let mut keyword_casts = Vec::new();
    let mut tests = frameworks::Finder::default();
    // Per open brace, whether it opens a namespace (or `extern "C"`) body; and the last
    // significant byte, to know where a declaration may start.
    let mut braces: Vec<bool> = Vec::new();
    let mut last = b';';
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let declaration_start = matches!(last, b';' | b'{' | b'}');
        // Comments and directives are skipped below; blanked text is no token.
        if !c.is_ascii_whitespace() && out[i] != b' ' && !matches!(c, b'/' | b'#') {
            last = c;
        }
        match c {
            b'{' => {
                braces.push(opens_namespace(bytes, i));
                i += 1;
            }
            b'}' => {
                braces.pop();
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => i = line_end(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = find(bytes, i + 2, b"*/").map_or(bytes.len(), |e| e + 2)
            }
            b'"' | b'\'' => i = skip_quoted(bytes, i),
            b'#' if at_line_start(bytes, i) => i = line_end_continued(bytes, i),
            b'=' if braced_default(bytes, i).is_some() => {
                let (open, end) = braced_default(bytes, i).unwrap_or((i, i));
                out[open] = b'0';
                blank(&mut out, open + 1, end);
                i = end;
            }
            b'[' if bytes.get(i + 1) == Some(&b'[') => {
                // `[[...]]`: the inner brackets close at `inner`, the outer right after it; the
                // attribute list is inside. Anything else (`[[x]` then `y]`) is no attribute.
                let inner = matching(bytes, i + 1, b'[', b']');
                let Some(inner) = inner.filter(|&e| bytes.get(e + 1) == Some(&b']')) else {
                    i += 2;
                    continue;
                };
                let end = inner + 1;
                let found = attributes_in(src, i + 2, inner);
                if !found.is_empty() || before_parameters(bytes, i, end + 1) {
                    attrs.extend(found);
                    blank(&mut out, i, end + 1);
                }
                i = end + 1;
            }
            c if is_ident_start(c) && (i == 0 || !is_ident(bytes[i - 1])) => {
                let end = ident_end(bytes, i);
                if declaration_start && braces.iter().all(|&ns| ns) {
                    if let Some(body) = tests.at(src, &mut out, i, end) {
                        i = body;
                        continue;
                    }
                }
                let word = &src[i..end];
                if keyword_cast(bytes, i, end) {
                    keyword_casts.push(i);
                } else if word == "SYCL_EXTERNAL" {
                    sycl_external.push(i);
                    blank(&mut out, i, end);
                } else if word == "SYCL_EXT_ONEAPI_FUNCTION_PROPERTY" {
                    let open = skip_ws(bytes, end);
                    if bytes.get(open) == Some(&b'(') {
                        if let Some(close) = matching(bytes, open, b'(', b')') {
                            attrs.extend(properties_in(src, open + 1, close));
                            blank(&mut out, i, close + 1);
                            i = close + 1;
                            continue;
                        }
                    }
                } else if BLANKED_TOKENS.contains(&word) || bare_template_keyword(bytes, i, end) {
                    blank(&mut out, i, end);
                } else if word == "extern" {
                    // `extern template class S<double>;` instantiates nothing here
                    // ([temp.explicit]/11), and tree-sitter-cpp cannot parse it.
                    let next = skip_ws(bytes, end);
                    if src[next..].starts_with("template")
                        && !is_ident(*bytes.get(next + 8).unwrap_or(&b' '))
                    {
                        if let Some(semi) = find(bytes, next, b";") {
                            blank(&mut out, i, semi + 1);
                            i = semi + 1;
                            continue;
                        }
                    }
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    Prepared {
        text: String::from_utf8(out).expect("only ASCII bytes were replaced by spaces"),
        attrs,
        sycl_external,
        keyword_casts,
        test_cases: tests.cases,
    }
}

/// Whether the `{` at `at` opens a namespace body (`namespace a::b {`, `namespace {`) or a
/// linkage specification's (`extern "C" {`): what is declared inside is at namespace scope.
fn opens_namespace(bytes: &[u8], at: usize) -> bool {
    let head = bytes[..at].trim_ascii_end();
    if head.ends_with(b"\"C\"") || head.ends_with(b"\"C++\"") {
        return true;
    }
    let mut k = head.len();
    while k > 0
        && (is_ident(head[k - 1]) || head[k - 1] == b':' || head[k - 1].is_ascii_whitespace())
    {
        k -= 1;
    }
    head[k..]
        .split(|b| b.is_ascii_whitespace())
        .any(|w| w == b"namespace")
}

/// Whether the attribute `bytes[at..end]` stands between a function's name and its parameter
/// list (`void operator() [[sycl::reqd_work_group_size(8)]] (sycl::nd_item<1>) const`, valid
/// C++ that tree-sitter-cpp cannot parse): after a name or `operator()`, before `(`.
fn before_parameters(bytes: &[u8], at: usize, end: usize) -> bool {
    if bytes.get(skip_ws(bytes, end)) != Some(&b'(') {
        return false;
    }
    let mut k = at;
    while k > 0 && bytes[k - 1].is_ascii_whitespace() {
        k -= 1;
    }
    let head = &bytes[..k];
    if head.ends_with(b")") {
        // `operator()`, `operator ( )`.
        let inner = head[..k - 1].trim_ascii_end();
        return inner.ends_with(b"(")
            && inner[..inner.len() - 1]
                .trim_ascii_end()
                .ends_with(b"operator");
    }
    // A name: an identifier that is no keyword a `[[` may follow.
    let mut s = k;
    while s > 0 && is_ident(bytes[s - 1]) {
        s -= 1;
    }
    s < k && is_ident_start(bytes[s]) && !matches!(&bytes[s..k], b"return" | b"else" | b"do")
}

/// The `device_has<...>` aspects of a property list text (`(device_has<aspect::fp64>)`).
pub fn properties_in(src: &str, start: usize, end: usize) -> Vec<RawAttr> {
    let mut found = Vec::new();
    let mut from = start;
    while let Some(at) = src[from..end].find("device_has").map(|p| p + from) {
        let after = at + "device_has".len();
        let open = skip_ws(src.as_bytes(), after);
        if src.as_bytes().get(open) == Some(&b'<') {
            if let Some(close) = matching_angle(src.as_bytes(), open, end) {
                found.push(RawAttr {
                    kind: AttrKind::DeviceHasProperty,
                    range: TextRange::new(at, close + 1),
                    args: split_args(src, open + 1, close),
                });
                from = close + 1;
                continue;
            }
        }
        from = after;
    }
    found
}

/// Attributes of interest in the list `a, ns::b(args), ...` between `start` and `end`.
fn attributes_in(src: &str, start: usize, end: usize) -> Vec<RawAttr> {
    let mut found = Vec::new();
    for (item, range) in split_args(src, start, end) {
        let name_end = item.find('(').unwrap_or(item.len());
        let name: String = item[..name_end]
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        let kind = match name.as_str() {
            "sycl::device_has" | "sycl::requires" => AttrKind::DeviceHas,
            "__sycl_detail__::__uses_aspects__" | "sycl_detail::uses_aspects" => {
                AttrKind::UsesAspects
            }
            "sycl::reqd_sub_group_size" | "intel::reqd_sub_group_size" => {
                AttrKind::ReqdSubGroupSize
            }
            _ => continue,
        };
        let mut args = Vec::new();
        if name_end < item.len() {
            let open = range.start + name_end;
            if let Some(close) = matching(src.as_bytes(), open, b'(', b')') {
                args = split_args(src, open + 1, close);
            }
        }
        // `requires(has(a, b))`: the old spelling wraps the list.
        if let [(only, r)] = args.as_slice() {
            if let Some(inner) = only.strip_prefix("has") {
                let inner = inner.trim_start();
                if inner.starts_with('(') && only.ends_with(')') {
                    let open = r.start + (only.len() - inner.len());
                    args = split_args(src, open + 1, r.end - 1);
                }
            }
        }
        found.push(RawAttr { kind, range, args });
    }
    found
}

/// Splits `start..end` at top-level commas; items are trimmed, empty ones dropped.
fn split_args(src: &str, start: usize, end: usize) -> Vec<(String, TextRange)> {
    let bytes = src.as_bytes();
    let mut items = Vec::new();
    let mut depth = 0i32;
    let mut item_start = start;
    let mut push = |a: usize, b: usize| {
        // Bounds come from ASCII delimiters; broken text must still never split a character.
        let Some(raw) = src.get(a..b) else {
            return;
        };
        let lead = raw.len() - raw.trim_start().len();
        let trimmed = raw.trim();
        if !trimmed.is_empty() {
            items.push((
                trimmed.to_string(),
                TextRange::new(a + lead, a + lead + trimmed.len()),
            ));
        }
    };
    for (i, &b) in bytes.iter().enumerate().take(end).skip(start) {
        match b {
            b'(' | b'[' | b'{' | b'<' => depth += 1,
            b')' | b']' | b'}' | b'>' => depth -= 1,
            b',' if depth == 0 => {
                push(item_start, i);
                item_start = i + 1;
            }
            _ => {}
        }
    }
    push(item_start, end);
    items
}

fn blank(out: &mut [u8], start: usize, end: usize) {
    let end = end.min(out.len());
    for b in &mut out[start..end] {
        if *b != b'\n' && *b != b'\r' {
            *b = b' ';
        }
    }
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn ident_end(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && is_ident(bytes[i]) {
        i += 1;
    }
    i
}

fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && bytes[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

fn line_end(bytes: &[u8], i: usize) -> usize {
    bytes[i..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |p| i + p)
}

/// End of a preprocessor line, following backslash continuations.
fn line_end_continued(bytes: &[u8], mut i: usize) -> usize {
    loop {
        let e = line_end(bytes, i);
        let continued = e > 0 && bytes[..e].ends_with(b"\\") || bytes[..e].ends_with(b"\\\r");
        if !continued || e >= bytes.len() {
            return e;
        }
        i = e + 1;
    }
}

fn at_line_start(bytes: &[u8], i: usize) -> bool {
    bytes[..i]
        .iter()
        .rev()
        .take_while(|&&b| b != b'\n')
        .all(|b| b.is_ascii_whitespace())
}

fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

fn skip_quoted(bytes: &[u8], i: usize) -> usize {
    let quote = bytes[i];
    // A digit separator (1'000) is not a character literal.
    if quote == b'\'' && i > 0 && bytes[i - 1].is_ascii_hexdigit() {
        return i + 1;
    }
    // Raw string literal R"delim( ... )delim".
    if quote == b'"' && i > 0 && bytes[i - 1] == b'R' {
        if let Some(open) = bytes[i + 1..].iter().position(|&b| b == b'(') {
            let delim = &bytes[i + 1..i + 1 + open];
            let mut close = vec![b')'];
            close.extend_from_slice(delim);
            close.push(b'"');
            return find(bytes, i + 2 + open, &close).map_or(bytes.len(), |e| e + close.len());
        }
    }
    let mut j = i + 1;
    while j < bytes.len() {
        match bytes[j] {
            b'\\' => j += 2,
            b'\n' => return j,
            c if c == quote => return j + 1,
            _ => j += 1,
        }
    }
    bytes.len()
}

/// Offset of the bracket closing the one at `open`, skipping comments and literals.
fn matching(bytes: &[u8], open: usize, o: u8, c: u8) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = line_end(bytes, i);
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = find(bytes, i + 2, b"*/").map_or(bytes.len(), |e| e + 2);
                continue;
            }
            b'"' | b'\'' => {
                i = skip_quoted(bytes, i);
                continue;
            }
            b if b == o => depth += 1,
            b if b == c => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn matching_angle(bytes: &[u8], open: usize, limit: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, &b) in bytes.iter().enumerate().take(limit).skip(open) {
        match b {
            b'<' | b'(' => depth += 1,
            b'>' | b')' => {
                depth -= 1;
                if depth == 0 {
                    return (b == b'>').then_some(i);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As the extractor does: preprocessed first.
    fn prepare(src: &str) -> Prepared {
        let mut macros = crate::syntax::pp::Macros::default();
        let pre = crate::syntax::pp::preprocess(
            src,
            "t.cpp",
            &mut macros,
            &crate::syntax::pp::NoIncludes,
        );
        super::prepare(&pre.text)
    }

    fn args(a: &RawAttr) -> Vec<&str> {
        a.args.iter().map(|(s, _)| s.as_str()).collect()
    }

    #[test]
    fn blanks_a_template_keyword_without_an_argument_list() {
        let src = "template <class T> void f(T &h, T *p) {\n  h.template parallel_for(r, k);\n  p -> template get(x);\n  T::template run(q);\n  h.template get<N + 1>(a);\n  typename T::template rebind<int>::other o;\n  h.template operator()(a);\n}\n";
        let p = prepare(src);
        assert_eq!(p.text.len(), src.len());
        let lines: Vec<&str> = p.text.lines().map(str::trim).collect();
        assert_eq!(lines[0], "template <class T> void f(T &h, T *p) {");
        assert_eq!(lines[1], "h.         parallel_for(r, k);");
        assert_eq!(lines[2], "p ->          get(x);");
        assert_eq!(lines[3], "T::         run(q);");
        assert_eq!(lines[4], "h.template get<N + 1>(a);");
        assert_eq!(lines[5], "typename T::template rebind<int>::other o;");
        assert_eq!(lines[6], "h.template operator()(a);");
    }

    #[test]
    fn gives_braced_default_arguments_a_parsable_value() {
        let src = "struct S {\n  template <class m> auto g(a::h &h, c<D> r, d<D> o = { 1,\n 2 }, int *p={}) { f(x = {}); }\n  int a = {};\n};\n";
        let p = prepare(src);
        assert_eq!(p.text.len(), src.len());
        let lines: Vec<&str> = p.text.lines().collect();
        assert_eq!(
            lines[1],
            "  template <class m> auto g(a::h &h, c<D> r, d<D> o = 0   "
        );
        assert_eq!(lines[2], "    , int *p=0 ) { f(x = {}); }");
        assert_eq!(lines[3], "  int a = {};");
    }

    #[test]
    fn blanks_attributes_and_macros_keeping_offsets() {
        let src = "[[sycl::device_has(sycl::aspect::fp16, aspect::fp64)]] SYCL_EXTERNAL void f(int* __restrict__ p);\n";
        let p = prepare(src);
        assert_eq!(p.text.len(), src.len());
        assert_eq!(p.text.trim(), "void f(int*              p);");
        assert_eq!(p.attrs.len(), 1);
        assert_eq!(p.attrs[0].kind, AttrKind::DeviceHas);
        assert_eq!(args(&p.attrs[0]), ["sycl::aspect::fp16", "aspect::fp64"]);
        let (text, r) = &p.attrs[0].args[1];
        assert_eq!(&src[r.start..r.end], text);
        assert_eq!(p.sycl_external, [src.find("SYCL_EXTERNAL").unwrap()]);
    }

    #[test]
    fn old_requires_has_spelling() {
        let p = prepare("[[sycl::requires(has(aspect::fp16, aspect::gpu))]] void f();");
        assert_eq!(args(&p.attrs[0]), ["aspect::fp16", "aspect::gpu"]);
        let p = prepare("[[sycl::requires(aspect::fp16)]] void f();");
        assert_eq!(args(&p.attrs[0]), ["aspect::fp16"]);
    }

    #[test]
    fn other_attributes_stay_and_ours_in_a_list_are_found() {
        let p = prepare(
            "[[nodiscard]] int f();\n[[maybe_unused, sycl::reqd_sub_group_size(16)]] void g();",
        );
        assert!(p.text.contains("[[nodiscard]]"));
        assert_eq!(p.attrs[0].kind, AttrKind::ReqdSubGroupSize);
        assert_eq!(args(&p.attrs[0]), ["16"]);
    }

    #[test]
    fn comments_strings_and_disabled_code_are_not_scanned() {
        let src = "// [[sycl::device_has()]]\nconst char* s = \"[[sycl::device_has()]]\";\n#if 0\n[[sycl::device_has()]] void f() { double d; }\n#endif\nint x;";
        let p = prepare(src);
        assert!(p.attrs.is_empty());
        assert!(!p.text.contains("double"));
        assert!(p.text.contains("int x;"));
        assert_eq!(p.text.len(), src.len());
    }

    #[test]
    fn function_property_macro() {
        let src = "SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((sycl::ext::oneapi::experimental::device_has<sycl::aspect::fp64>))\nvoid f() {}";
        let p = prepare(src);
        assert_eq!(p.attrs[0].kind, AttrKind::DeviceHasProperty);
        assert_eq!(args(&p.attrs[0]), ["sycl::aspect::fp64"]);
        assert!(p.text.trim_start().starts_with("void f()"));
    }

    #[test]
    fn uses_aspects_spellings_and_empty_defines() {
        let p = prepare("#define DEV\nstruct [[__sycl_detail__::__uses_aspects__(sycl::aspect::fp16)]] S {};\nDEV int f();\n");
        assert_eq!(p.attrs[0].kind, AttrKind::UsesAspects);
        assert!(p.text.contains("\n int f();") && !p.text.contains("DEV"));
    }

    #[test]
    fn nested_if_zero_with_else() {
        let src = "#if 0\n#if X\na\n#endif\nb\n#else\nc\n#endif\n";
        let p = prepare(src);
        assert!(!p.text.contains('a') && !p.text.contains('b'));
        assert!(p.text.contains('c'));
    }

    #[test]
    fn unterminated_input_does_not_panic() {
        for src in [
            "[[sycl::device_has(",
            "\"abc",
            "/* x",
            "R\"(abc",
            "SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((",
            "#if 0\n",
        ] {
            let p = prepare(src);
            assert_eq!(p.text.len(), src.len());
        }
    }

    #[test]
    fn an_attribute_before_a_parameter_list_is_blanked() {
        // `void operator() [[attr]] (params)`: tree-sitter-cpp cannot read it in place.
        let src = "struct K { void operator() [[sycl::reqd_work_group_size(8)]] (int i) const {} };\nvoid f [[nodiscard]] (int);\n";
        let p = prepare(src);
        assert_eq!(p.text.len(), src.len());
        assert!(!p.text.contains("[["), "{}", p.text);
        assert!(p.attrs.is_empty());
        // Elsewhere an attribute it does not know stays.
        let src = "[[nodiscard]] int g();\nvoid h() { int a[2]; [[maybe_unused]] int b = a[0]; }\n";
        assert_eq!(prepare(src).text, src);
    }
}
