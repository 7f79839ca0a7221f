//! Documents built once, on first use: the `/entities` list and the OpenAPI description.

use bytes::Bytes;
use serde::Serialize;

use crate::detect::EntityType;

/// The OpenAPI 3.0 document, kept in the repository root.
pub const OPENAPI_JSON: &str = include_str!("../../openapi.json");

/// Pre-serialized bodies of the static endpoints.
pub struct Documents {
    pub entities: Bytes,
    pub openapi: Bytes,
}

#[derive(Serialize)]
struct EntityRow {
    entity_type: &'static str,
    token_prefix: &'static str,
    token_example: String,
    description: &'static str,
}

#[derive(Serialize)]
struct EntityList {
    entities: Vec<EntityRow>,
}

impl Documents {
    /// The documents of this process, built on first use.
    pub fn get() -> &'static Documents {
        static DOCUMENTS: std::sync::OnceLock<Documents> = std::sync::OnceLock::new();
        DOCUMENTS.get_or_init(Documents::build)
    }

    pub fn build() -> Documents {
        let list = EntityList {
            entities: EntityType::ALL
                .iter()
                .map(|t| EntityRow {
                    entity_type: t.name(),
                    token_prefix: t.token_prefix(),
                    token_example: format!("[[{}_1]]", t.token_prefix()),
                    description: t.description(),
                })
                .collect(),
        };
        Documents {
            entities: Bytes::from(serde_json::to_vec(&list).unwrap_or_default()),
            openapi: Bytes::from_static(OPENAPI_JSON.as_bytes()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openapi_document_is_valid_json_with_version() {
        let doc: serde_json::Value = serde_json::from_str(OPENAPI_JSON).unwrap();
        assert_eq!(doc["info"]["version"], "1.0.0");
        assert!(doc["openapi"].as_str().unwrap().starts_with("3.0"));
    }

    #[test]
    fn entities_list_has_the_contracts_thirteen_rows_first_then_the_added_ones() {
        let doc: serde_json::Value = serde_json::from_slice(&Documents::build().entities).unwrap();
        let rows = doc["entities"].as_array().unwrap();
        assert_eq!(rows.len(), 18);
        assert_eq!(rows[0]["entity_type"], "PERSON");
        assert_eq!(rows[0]["token_example"], "[[NAME_1]]");
        assert_eq!(rows[12]["token_prefix"], "URL");
        let added: Vec<&str> = rows[13..]
            .iter()
            .filter_map(|r| r["entity_type"].as_str())
            .collect();
        assert_eq!(added, ["SECRET", "KVNR", "AUSWEIS", "UST_ID", "US_SSN"]);
        // The OpenAPI enum lists the same names in the same order.
        let doc: serde_json::Value = serde_json::from_str(OPENAPI_JSON).unwrap();
        let names: Vec<&str> = rows
            .iter()
            .filter_map(|r| r["entity_type"].as_str())
            .collect();
        let schema = &doc["components"]["schemas"];
        let listed: Vec<&str> = schema["EntityType"]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|v| v.as_str())
            .collect();
        assert_eq!(listed, names);
        let prefixes: Vec<&str> = rows
            .iter()
            .filter_map(|r| r["token_prefix"].as_str())
            .collect();
        let listed: Vec<&str> = schema["EntityInfo"]["properties"]["token_prefix"]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|v| v.as_str())
            .collect();
        assert_eq!(listed, prefixes);
        let pattern = schema["Token"]["pattern"].as_str().unwrap();
        for r in rows {
            let prefix = r["token_prefix"].as_str().unwrap();
            assert!(
                pattern.contains(&format!("|{prefix}|"))
                    || pattern.contains(&format!("({prefix}|"))
                    || pattern.contains(&format!("|{prefix})")),
                "{prefix}"
            );
        }
    }
}
