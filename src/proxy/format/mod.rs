//! Wire formats: one module per provider API, each behind [`WireFormat`]. A format knows its
//! endpoints, its error shape and how to rewrite its streamed replies; the request walk
//! ([`crate::proxy::walk`]) and the whole-JSON reply restore ([`crate::proxy::restore`]) are
//! shared by all formats because the policy is the same everywhere.
//!
//! Adding a format: one file implementing [`WireFormat`] plus one line in [`for_name`].

pub(crate) mod anthropic;
pub(crate) mod ollama;
pub(crate) mod openai;
mod wire;

use crate::config::WireFormatName;

pub use wire::{FormatRefusal, StreamHandler, WireFormat};

/// The format of a route.
pub fn for_name(name: WireFormatName) -> &'static dyn WireFormat {
    match name {
        WireFormatName::Openai => &openai::OpenAi,
        WireFormatName::Anthropic => &anthropic::Anthropic,
        WireFormatName::Ollama => &ollama::Ollama,
    }
}

/// Endpoint name used for `unknown = "generic"` routes.
pub const GENERIC: &str = "generic";
