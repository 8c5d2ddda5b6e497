//! Content blocks: what a tool result and a prompt message carry.
//!
//! Every block the 2026-07-28 and 2025-11-25 schemas define, with one typed builder each:
//! text, image and audio (raw bytes in, base64 on the wire, a MIME type), an embedded resource
//! (text or blob, as [`ResourceContents`](crate::catalog::ResourceContents)), and a resource link. Any block may carry
//! [`Annotations`] (audience, priority, last modification). Blocks keep the order they are
//! given in.
//!
//! ```
//! use beam_mcp::catalog::{ResourceContents, Role};
//! use beam_mcp::content::{Annotations, Content, ResourceLink};
//! use serde_json::json;
//!
//! let chart = Content::image(vec![0x89, b'P', b'N', b'G'], "image/png")
//!     .with_annotations(Annotations::new().with_audience([Role::User]).with_priority(0.9)?);
//! assert_eq!(
//!     serde_json::to_value(&chart)?,
//!     json!({"type": "image", "data": "iVBORw==", "mimeType": "image/png",
//!            "annotations": {"audience": ["user"], "priority": 0.9}})
//! );
//!
//! let file = Content::resource(ResourceContents::text("file:///notes.txt", "hi").with_mime_type("text/plain"));
//! let link = Content::resource_link(ResourceLink::new("file:///big.csv", "big.csv").with_size(1 << 20));
//! assert_eq!(serde_json::to_value(&file)?["resource"]["text"], "hi");
//! assert_eq!(serde_json::to_value(&link)?["type"], "resource_link");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub use crate::model::{Annotations, Content, ContentKind, InvalidPriority, ResourceLink};
