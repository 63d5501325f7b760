//! Macro expansion on hide sets: a token coming out of the expansion of `M` never expands `M`
//! again, so recursive macros stop where the standard says and no depth counter is needed.

use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::Arc;

use super::lex::{self, Kind, Tok};
use super::macros::{MTok, Macro, Macros};

/// A token during expansion: owned text, because pasting and stringizing make new ones.
#[derive(Clone, Debug)]
pub struct PTok {
    pub kind: Kind,
    pub text: Arc<str>,
    pub space: bool,
    /// Names this token may no longer expand.
    pub hide: Rc<Vec<Arc<str>>>,
    /// Seen inside its own expansion: it stays an identifier for good.
    pub painted: bool,
    /// Where its text is written in the file read ([`NOWHERE`] for text a macro's body, a
    /// paste or a stringizing made): a token out of a macro argument keeps its own place, as
    /// clang's spelling location.
    pub at: u32,
}

/// The `at` of a token whose text the file does not hold.
pub const NOWHERE: u32 = u32::MAX;

thread_local! {
    /// The empty hide set every token starts with, shared: `Rc::default()` allocates.
    static NO_HIDE: Rc<Vec<Arc<str>>> = Rc::default();
}

impl PTok {
    pub fn new(kind: Kind, text: &str, space: bool) -> Self {
        PTok {
            kind,
            text: Arc::from(text),
            space,
            hide: NO_HIDE.with(Rc::clone),
            painted: false,
            at: NOWHERE,
        }
    }

    pub fn of(t: &Tok, src: &str) -> Self {
        PTok {
            at: u32::try_from(t.start).unwrap_or(NOWHERE),
            ..PTok::new(t.kind, t.text(src), t.space_before)
        }
    }

    pub fn is(&self, p: &str) -> bool {
        self.kind == Kind::Punct && &*self.text == p
    }
}

/// More than this many tokens out of one macro use is a runaway (an exponential macro): the
/// use is left as written.
const MAX_TOKENS: usize = 100_000;

/// Where the machine reads: tokens it pushed back first, then the text after the use.
pub struct Input<'r> {
    queue: VecDeque<PTok>,
    rest: Rest<'r>,
    /// How many of `rest` were taken.
    pub taken: usize,
}

/// The text after the use: tokens made already, or lexed ones made into tokens as they are
/// read (most of a line after a macro use is never read by its expansion).
enum Rest<'r> {
    Made(&'r [PTok]),
    Lexed(&'r [Tok], &'r str),
}

impl<'r> Input<'r> {
    pub fn new(queue: VecDeque<PTok>, rest: &'r [PTok]) -> Self {
        Input {
            queue,
            rest: Rest::Made(rest),
            taken: 0,
        }
    }

    /// As `new`, with the rest as lexed from `src`.
    pub fn lexed(queue: VecDeque<PTok>, rest: &'r [Tok], src: &'r str) -> Self {
        Input {
            queue,
            rest: Rest::Lexed(rest, src),
            taken: 0,
        }
    }

    fn next(&mut self) -> Option<PTok> {
        if let Some(t) = self.queue.pop_front() {
            return Some(t);
        }
        let t = match self.rest {
            Rest::Made(r) => r.get(self.taken)?.clone(),
            Rest::Lexed(r, src) => PTok::of(r.get(self.taken)?, src),
        };
        self.taken += 1;
        Some(t)
    }

    /// The next token is the punctuator `p`.
    fn peek_is(&self, p: &str) -> bool {
        if let Some(t) = self.queue.front() {
            return t.is(p);
        }
        match self.rest {
            Rest::Made(r) => r.get(self.taken).is_some_and(|t| t.is(p)),
            Rest::Lexed(r, src) => r
                .get(self.taken)
                .is_some_and(|t| t.kind == Kind::Punct && t.text(src) == p),
        }
    }
}

pub struct Expander<'m> {
    pub macros: &'m Macros,
    /// `#if` mode: `defined X` is left for the evaluator and not expanded.
    pub directive: bool,
    /// The line `__LINE__` answers, and the file `__FILE__` does.
    pub line: u32,
    pub file: &'m str,
    produced: usize,
    pub overflow: bool,
    /// A function-like macro's arguments ran past the end of the input: the use may go on in
    /// text not given (after a directive line).
    pub starved: bool,
}

impl<'m> Expander<'m> {
    pub fn new(macros: &'m Macros, directive: bool, line: u32, file: &'m str) -> Self {
        Expander {
            macros,
            directive,
            line,
            file,
            produced: 0,
            overflow: false,
            starved: false,
        }
    }

    /// Expands what `input` holds: all of its queue, and of `rest` as much as a function-like
    /// macro at the end of the queue takes as arguments (with `whole`, all of `rest`).
    pub fn run(&mut self, input: &mut Input, whole: bool) -> Vec<PTok> {
        let mut out = Vec::new();
        loop {
            if !whole && input.queue.is_empty() {
                break;
            }
            let Some(mut t) = input.next() else { break };
            if self.overflow {
                out.push(t);
                continue;
            }
            if t.kind != Kind::Ident || t.painted {
                out.push(t);
                continue;
            }
            if self.directive && &*t.text == "defined" {
                // `defined X` / `defined ( X )`: the operand is not expanded.
                out.push(t);
                let open = input.peek_is("(");
                let n = if open { 3 } else { 1 };
                for _ in 0..n {
                    match input.next() {
                        Some(x) => out.push(x),
                        None => break,
                    }
                }
                continue;
            }
            if let Some(special) = self.special(&t) {
                out.push(special);
                continue;
            }
            let Some(m) = self.macros.get(&t.text) else {
                out.push(t);
                continue;
            };
            if t.hide.iter().any(|h| **h == *t.text) {
                t.painted = true;
                out.push(t);
                continue;
            }
            let name: Arc<str> = Arc::from(&*t.text);
            let replacement = match &m.params {
                None => {
                    let hide = with(&t.hide, &name);
                    self.substitute(m, &[], false, &hide, t.space)
                }
                Some(_) => {
                    if !input.peek_is("(") {
                        out.push(t);
                        continue;
                    }
                    input.next();
                    let Some((args, commas, close)) = collect_args(input) else {
                        // No closing parenthesis: not a use, as the compiler would say.
                        self.starved = true;
                        out.push(t);
                        continue;
                    };
                    let shared: Vec<Arc<str>> = t
                        .hide
                        .iter()
                        .filter(|h| close.hide.contains(h))
                        .cloned()
                        .collect();
                    let hide = with(&Rc::new(shared), &name);
                    let omitted = m.variadic && args.len() < m.params.as_ref().map_or(0, Vec::len);
                    let args = fit_args(m, args, commas);
                    self.substitute(m, &args, omitted, &hide, t.space)
                }
            };
            self.produced += replacement.len();
            if self.produced > MAX_TOKENS {
                self.overflow = true;
            }
            for r in replacement.into_iter().rev() {
                input.queue.push_front(r);
            }
        }
        out
    }

    fn special(&self, t: &PTok) -> Option<PTok> {
        if self.macros.get(&t.text).is_some() {
            return None;
        }
        match &*t.text {
            "__LINE__" => Some(PTok::new(Kind::Number, &self.line.to_string(), t.space)),
            "__FILE__" => Some(PTok::new(
                Kind::Literal,
                &format!("{:?}", self.file),
                t.space,
            )),
            "__COUNTER__" => Some(PTok::new(Kind::Number, "0", t.space)),
            _ => None,
        }
    }

    /// The replacement list of `m` with `args` put in, every token hidden from `hide`;
    /// `omitted`: the call gave no variable arguments at all (`F(1)`, not `F(1,)`).
    fn substitute(
        &mut self,
        m: &Macro,
        args: &[Vec<PTok>],
        omitted: bool,
        hide: &Rc<Vec<Arc<str>>>,
        space: bool,
    ) -> Vec<PTok> {
        let params = m.params.as_deref().unwrap_or(&[]);
        let param = |t: &MTok| -> Option<usize> {
            (t.kind == Kind::Ident)
                .then(|| params.iter().position(|p| **p == *t.text))
                .flatten()
        };
        let variadic_empty = m.variadic && args.last().is_none_or(|a| a.is_empty());
        let body = &m.body;
        let mut out: Vec<PTok> = Vec::new();
        // Set after `##`: the next token is pasted onto the last one.
        let mut paste = false;
        // Set after `, ##` before variable arguments that stay: they go in unexpanded.
        let mut raw_next = false;
        let mut i = 0;
        while i < body.len() {
            let t = &body[i];
            let next_is_paste = body.get(i + 1).is_some_and(|n| n.is("##"));
            if t.is("##") {
                // GNU `, ## __VA_ARGS__`: the comma goes when the call gives no variable
                // arguments (`F(1)`; `F(1,)` keeps it, as GCC and clang do; so does a
                // `(...)` macro called with none, as clang in its GNU modes). Otherwise
                // nothing is pasted: the comma stays before the arguments.
                if m.variadic
                    && out.last().is_some_and(|l| l.is(","))
                    && body.get(i + 1).and_then(&param) == Some(params.len() - 1)
                {
                    if variadic_empty && (omitted || params.len() == 1) {
                        out.pop();
                        i += 2;
                    } else {
                        raw_next = true;
                        i += 1;
                    }
                    continue;
                }
                paste = true;
                i += 1;
                continue;
            }
            if t.kind == Kind::Ident && &*t.text == "__VA_OPT__" && m.variadic {
                // `__VA_OPT__(x)`: x when there are variadic arguments.
                let close = matching_paren(body, i + 1);
                // Present when the variable arguments expand to some token: `F(EMPTY)` has
                // none, as GCC and clang read it.
                let present =
                    !variadic_empty && args.last().is_some_and(|a| !self.expand_arg(a).is_empty());
                if present {
                    let inner = body[i + 2..close.min(body.len())].to_vec();
                    let sub = Macro {
                        body: inner,
                        ..m.clone()
                    };
                    let expanded = self.substitute(&sub, args, omitted, hide, t.space);
                    out.extend(expanded);
                }
                i = close + 1;
                paste = false;
                continue;
            }
            if t.is("#") {
                if let Some(p) = body.get(i + 1).and_then(&param) {
                    let s = stringize(&args[p]);
                    self.push(&mut out, PTok::new(Kind::Literal, &s, t.space), &mut paste);
                    i += 2;
                    continue;
                }
            }
            if let Some(p) = param(t) {
                let raw = paste || next_is_paste || std::mem::take(&mut raw_next);
                let mut toks = if raw {
                    args[p].clone()
                } else {
                    self.expand_arg(&args[p])
                };
                if let Some(first) = toks.first_mut() {
                    first.space = t.space;
                }
                if toks.is_empty() {
                    // A placemarker: pasting onto nothing keeps the other side.
                    if paste && !next_is_paste {
                        paste = false;
                    }
                } else {
                    for (k, x) in toks.drain(..).enumerate() {
                        let x = PTok {
                            hide: union(&x.hide, hide),
                            ..x
                        };
                        if k == 0 {
                            self.push(&mut out, x, &mut paste);
                        } else {
                            out.push(x);
                        }
                    }
                }
                i += 1;
                continue;
            }
            let x = PTok {
                kind: t.kind,
                text: t.text.clone(),
                space: t.space,
                hide: hide.clone(),
                painted: false,
                at: NOWHERE,
            };
            self.push(&mut out, x, &mut paste);
            i += 1;
        }
        if let Some(first) = out.first_mut() {
            first.space = space;
        }
        out
    }

    /// An argument fully expanded on its own, as before it replaces a parameter.
    fn expand_arg(&mut self, arg: &[PTok]) -> Vec<PTok> {
        let mut input = Input::new(arg.iter().cloned().collect(), &[]);
        let mut sub = Expander::new(self.macros, self.directive, self.line, self.file);
        let e = sub.run(&mut input, false);
        self.produced += sub.produced;
        self.overflow |= sub.overflow;
        e
    }

    fn push(&self, out: &mut Vec<PTok>, t: PTok, paste: &mut bool) {
        if std::mem::take(paste) {
            if let Some(last) = out.last_mut() {
                let text = format!("{}{}", last.text, t.text);
                let toks = lex::lex(&text, 0, text.len());
                last.kind = match toks.as_slice() {
                    [one] if one.end == text.len() => one.kind,
                    _ => Kind::Other,
                };
                last.text = Arc::from(text.as_str());
                last.hide = union(&last.hide, &t.hide);
                last.at = NOWHERE;
                return;
            }
        }
        out.push(t);
    }
}

fn with(hide: &Rc<Vec<Arc<str>>>, name: &Arc<str>) -> Rc<Vec<Arc<str>>> {
    if hide.contains(name) {
        return hide.clone();
    }
    let mut h = (**hide).clone();
    h.push(name.clone());
    Rc::new(h)
}

fn union(a: &Rc<Vec<Arc<str>>>, b: &Rc<Vec<Arc<str>>>) -> Rc<Vec<Arc<str>>> {
    if a.is_empty() {
        return b.clone();
    }
    if b.iter().all(|x| a.contains(x)) {
        return a.clone();
    }
    let mut h = (**a).clone();
    h.extend(b.iter().filter(|x| !a.contains(x)).cloned());
    Rc::new(h)
}

/// Arguments up to the closing parenthesis (the opening one is taken), split at top-level
/// commas (returned too: variable arguments keep theirs); `None` when the input ends first.
fn collect_args(input: &mut Input) -> Option<(Vec<Vec<PTok>>, Vec<PTok>, PTok)> {
    let mut args = vec![Vec::new()];
    let mut commas = Vec::new();
    let mut depth = 0usize;
    loop {
        let t = input.next()?;
        if t.is("(") {
            depth += 1;
        } else if t.is(")") {
            if depth == 0 {
                return Some((args, commas, t));
            }
            depth -= 1;
        } else if t.is(",") && depth == 0 {
            args.push(Vec::new());
            commas.push(t);
            continue;
        }
        args.last_mut().expect("one argument at least").push(t);
    }
}

/// Arguments matched to parameters: the variadic ones join into one with the commas between
/// them as written (`#__VA_ARGS__` shows their spacing), missing ones are empty.
fn fit_args(m: &Macro, mut args: Vec<Vec<PTok>>, commas: Vec<PTok>) -> Vec<Vec<PTok>> {
    let n = m.params.as_ref().map_or(0, Vec::len);
    if n == 0 {
        return Vec::new();
    }
    if m.variadic && args.len() > n {
        let extra = args.split_off(n - 1);
        let mut joined = Vec::new();
        let mut commas = commas.into_iter().skip(n - 1);
        for (k, a) in extra.into_iter().enumerate() {
            if k > 0 {
                joined.extend(commas.next());
            }
            joined.extend(a);
        }
        args.push(joined);
    }
    args.resize(n, Vec::new());
    args
}

fn matching_paren(body: &[MTok], open: usize) -> usize {
    let mut depth = 0usize;
    for (k, t) in body.iter().enumerate().skip(open) {
        if t.is("(") {
            depth += 1;
        } else if t.is(")") {
            depth -= 1;
            if depth == 0 {
                return k;
            }
        }
    }
    body.len()
}

fn stringize(arg: &[PTok]) -> String {
    let mut s = String::from("\"");
    for (k, t) in arg.iter().enumerate() {
        if k > 0 && t.space {
            s.push(' ');
        }
        if t.kind == Kind::Literal {
            for c in t.text.chars() {
                if c == '"' || c == '\\' {
                    s.push('\\');
                }
                s.push(c);
            }
        } else {
            s.push_str(&t.text);
        }
    }
    s.push('"');
    s
}

/// Tokens as text for the parser: one space wherever the source had one, and between two
/// tokens that would otherwise read as one.
pub fn render(toks: &[PTok], out: &mut String) {
    let mut prev: Option<&PTok> = None;
    for t in toks {
        if let Some(p) = prev {
            if t.space || joins(p, t) {
                out.push(' ');
            }
        }
        out.push_str(&t.text);
        prev = Some(t);
    }
}

pub(super) fn joins(a: &PTok, b: &PTok) -> bool {
    let word = |k: Kind| matches!(k, Kind::Ident | Kind::Number | Kind::Literal);
    // Brackets, parentheses, braces, `;` and `,` join no neighbour into one punctuator: kept
    // apart, `[[` of an attribute out of a macro's body would read `[ [`, which is no attribute
    // to `prepare`.
    let lone = |t: &PTok| matches!(&*t.text, "[" | "]" | "(" | ")" | "{" | "}" | ";" | ",");
    (word(a.kind) && word(b.kind))
        || (a.kind == Kind::Punct && b.kind == Kind::Punct && !lone(a) && !lone(b))
}
