//! Diagnostics: the stable codes urlsift reports, their default severity and
//! one-line documentation, and the [`Diagnostic`] value that carries one
//! finding about one URL.
//!
//! Codes are part of the public contract (configuration files and CI
//! pipelines name them), so a code is never renamed; new ones are added.

use std::fmt;

/// How serious a diagnostic is. Ordered: `Note < Warning < Error`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Worth knowing, never wrong.
    Note,
    /// Legal but risky or ambiguous.
    Warning,
    /// Violates the grammar: the URL is not valid.
    Error,
}

impl Severity {
    /// The lower-case name used in JSON and text output.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which reading of the URL syntax produced a diagnostic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Grammar {
    /// RFC 1738 as written (the default).
    #[default]
    Rfc1738,
    /// The generic syntax of RFC 3986 plus the scheme rules that still apply.
    Rfc3986,
}

impl Grammar {
    /// The name used on the command line and in output: `rfc1738` or `rfc3986`.
    pub fn as_str(self) -> &'static str {
        match self {
            Grammar::Rfc1738 => "rfc1738",
            Grammar::Rfc3986 => "rfc3986",
        }
    }
}

macro_rules! codes {
    ($($variant:ident => $name:literal, $sev:ident, $doc:literal;)*) => {
        /// A stable diagnostic code. See [`Code::ALL`] for the catalogue.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum Code {
            $(#[doc = $doc] $variant,)*
        }

        impl Code {
            /// Every code, in catalogue order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The kebab-case name, e.g. `unclosed-wrapper`.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $name,)* }
            }

            /// The severity used unless configuration overrides it.
            pub fn default_severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$sev,)* }
            }

            /// One line saying what the code means.
            pub fn summary(self) -> &'static str {
                match self { $(Code::$variant => $doc,)* }
            }

            /// Looks a code up by its kebab-case name.
            pub fn from_name(name: &str) -> Option<Code> {
                match name { $($name => Some(Code::$variant),)* _ => None }
            }
        }
    };
}

codes! {
    UnclosedWrapper => "unclosed-wrapper", Error,
        "A `<URL:` or `<scheme:` wrapper is not closed by `>` before the end of input, a blank line or the next `<`.";
    HyphenLineBreak => "hyphen-line-break", Warning,
        "A line break right after `-` inside a wrapper: the hyphen may be the typesetter's, not the URL's (RFC 1738 appendix).";
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding about one URL.
///
/// `start..end` is a half-open byte range in the URL text (the rejoined
/// URL, not the source file); the caller maps it back to source positions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The stable code.
    pub code: Code,
    /// The severity (the code's default unless configuration changed it).
    pub severity: Severity,
    /// One line naming the offending text.
    pub message: String,
    /// First byte of the offending text in the URL.
    pub start: usize,
    /// One past the last byte of the offending text in the URL.
    pub end: usize,
    /// A mechanical fix: the whole corrected URL, when one exists.
    pub fix: Option<String>,
    /// The grammar that produced it; `None` for extraction diagnostics.
    pub grammar: Option<Grammar>,
}

impl Diagnostic {
    /// A diagnostic with the code's default severity and no fix.
    pub fn new(code: Code, start: usize, end: usize, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: code.default_severity(),
            message: message.into(),
            start,
            end,
            fix: None,
            grammar: None,
        }
    }
}
