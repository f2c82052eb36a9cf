//! An error said with what caused it.

/// `error` and its causes, each said once, `: `-separated: `what: why: why deeper`. A cause whose
/// text the line already holds (an error that repeats its source) is not said again.
///
/// ```
/// use std::fmt;
///
/// #[derive(Debug)]
/// struct Unreachable(std::io::Error, &'static str);
///
/// impl fmt::Display for Unreachable {
///     fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
///         f.write_str(self.1)
///     }
/// }
///
/// impl std::error::Error for Unreachable {
///     fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
///         Some(&self.0)
///     }
/// }
///
/// let refused = || std::io::Error::other("connection refused");
/// let error = Unreachable(refused(), "cannot connect");
/// assert_eq!(toolkit::with_causes(&error), "cannot connect: connection refused");
/// let error = Unreachable(refused(), "cannot connect (connection refused)");
/// assert_eq!(toolkit::with_causes(&error), "cannot connect (connection refused)");
/// ```
pub fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let said = cause.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        source = cause.source();
    }
    text
}
