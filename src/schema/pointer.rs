//! JSON Pointer (RFC 6901) building, for schema locations and instance paths.

/// Appends `/segment` to `pointer`, escaping `~` as `~0` and `/` as `~1`.
pub(crate) fn push(pointer: &mut String, segment: &str) {
    pointer.push('/');
    for c in segment.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// One step from an instance value to a child, kept on the stack while validating so that a path
/// string is built only when a violation is reported.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Step<'a> {
    Root,
    Key(&'a Step<'a>, &'a str),
    Index(&'a Step<'a>, usize),
}

impl Step<'_> {
    pub(crate) fn to_pointer(self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(self, out: &mut String) {
        match self {
            Step::Root => {}
            Step::Key(parent, key) => {
                parent.write(out);
                push(out, key);
            }
            Step::Index(parent, i) => {
                parent.write(out);
                out.push('/');
                out.push_str(&i.to_string());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_tilde_and_slash() {
        let mut p = String::new();
        push(&mut p, "a/b~c");
        assert_eq!(p, "/a~1b~0c");
    }

    #[test]
    fn steps_render_as_pointer() {
        let root = Step::Root;
        let items = Step::Key(&root, "items");
        let zero = Step::Index(&items, 0);
        let name = Step::Key(&zero, "name");
        assert_eq!(name.to_pointer(), "/items/0/name");
        assert_eq!(root.to_pointer(), "");
    }
}
