//! Icons: the `Icon` of both revisions' schemas, on tools, resources, templates, prompts and
//! the server's own `serverInfo`, and the checks a link a client may follow passes at startup.

use crate::error::UriFault;

/// The schemes an icon's `src` may have.
pub(crate) const ICON_SCHEMES: &[&str] = &["https", "http", "data"];
/// The schemes the server's `websiteUrl` may have.
pub(crate) const WEBSITE_SCHEMES: &[&str] = &["https", "http"];

/// Checks `uri` is a URI (RFC 3986, as `fluent-uri` parses it: the `format: "uri"` the schema
/// gives `src` and `websiteUrl`) with one of `schemes` (compared case-insensitively): an
/// http(s) URL with a host, or a `data:` URI of base64-encoded image data.
pub(crate) fn check_link(uri: &str, schemes: &[&str]) -> Result<(), UriFault> {
    let parsed = fluent_uri::Uri::parse(uri).map_err(|_| UriFault::NotAUri)?;
    let scheme = parsed.scheme().as_str();
    if !schemes.iter().any(|s| s.eq_ignore_ascii_case(scheme)) {
        return Err(UriFault::Scheme {
            scheme: scheme.to_owned(),
        });
    }
    if scheme.eq_ignore_ascii_case("data") {
        return check_image_data(parsed.path().as_str());
    }
    match parsed.authority() {
        Some(authority) if !authority.host().is_empty() => Ok(()),
        _ => Err(UriFault::MissingHost),
    }
}

/// The body of a `data:` icon (RFC 2397): `image/<subtype>`, optional parameters, `;base64`,
/// a comma, then base64 (standard alphabet, padded) — the "Base64-encoded image data" the
/// schema's `Icon.src` describes.
fn check_image_data(body: &str) -> Result<(), UriFault> {
    use base64::Engine as _;
    let (head, data) = body.split_once(',').ok_or(UriFault::DataSyntax)?;
    let Some(media) = head.strip_suffix(";base64") else {
        return Err(UriFault::DataSyntax);
    };
    let mime = media.split(';').next().unwrap_or_default();
    let image = mime
        .split_once('/')
        .is_some_and(|(kind, sub)| kind.eq_ignore_ascii_case("image") && !sub.is_empty());
    if !image {
        return Err(UriFault::DataSyntax);
    }
    match base64::engine::general_purpose::STANDARD.decode(data) {
        Ok(_) => Ok(()),
        Err(_) => Err(UriFault::DataSyntax),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn icon_sources() {
        for ok in [
            "https://example.com/i.png",
            "HTTPS://EXAMPLE.COM/i.png",
            "http://127.0.0.1:8080/i.svg",
            "https://[::1]:8443/i.png",
            "https://user@example.com/i.png",
            "data:image/png;base64,iVBORw0KGgo=",
            "DATA:image/svg+xml;charset=utf-8;base64,PHN2Zy8+",
        ] {
            assert_eq!(check_link(ok, ICON_SCHEMES), Ok(()), "{ok}");
        }
        for (bad, fault) in [
            (
                "javascript:alert(1)",
                UriFault::Scheme {
                    scheme: "javascript".into(),
                },
            ),
            (
                "file:///etc/passwd",
                UriFault::Scheme {
                    scheme: "file".into(),
                },
            ),
            (
                "ftp://example.com/i.png",
                UriFault::Scheme {
                    scheme: "ftp".into(),
                },
            ),
            ("/relative/i.png", UriFault::NotAUri),
            ("i.png", UriFault::NotAUri),
            ("", UriFault::NotAUri),
            ("1http://x/", UriFault::NotAUri),
            ("https://exa mple.com/", UriFault::NotAUri),
            ("https://example.com/\u{e9}", UriFault::NotAUri),
            ("https:example.com", UriFault::MissingHost),
            ("https:///path", UriFault::MissingHost),
            ("https://:443/", UriFault::MissingHost),
            ("data:image/png;base64", UriFault::DataSyntax),
            ("data:,", UriFault::DataSyntax),
            ("data:text/html;base64,PGI+", UriFault::DataSyntax),
            ("data:image/png,rawbytes", UriFault::DataSyntax),
            ("data:image/png;base64,!!!", UriFault::DataSyntax),
            ("data:/png;base64,AAAA", UriFault::DataSyntax),
            ("https://[::1/i.png", UriFault::NotAUri),
            ("https://example.com:abc/i.png", UriFault::NotAUri),
            ("https://ex[ample.com/i.png", UriFault::NotAUri),
            ("https://example.com/%", UriFault::NotAUri),
            ("https://example.com/%zz", UriFault::NotAUri),
            ("https://example.com/#a#b", UriFault::NotAUri),
        ] {
            assert_eq!(check_link(bad, ICON_SCHEMES), Err(fault), "{bad}");
        }
    }

    #[test]
    fn a_website_is_http_or_https_only() {
        assert_eq!(check_link("https://example.com", WEBSITE_SCHEMES), Ok(()));
        assert_eq!(
            check_link("data:,x", WEBSITE_SCHEMES),
            Err(UriFault::Scheme {
                scheme: "data".into()
            })
        );
    }
}
