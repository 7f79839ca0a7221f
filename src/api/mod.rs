//! The REST API under `/api/v1` (api.md), answered inside pingora's `request_filter`.

use bytes::Bytes;
use pingora::http::ResponseHeader;
use pingora::proxy::Session;

use crate::app::App;

/// Answers one local request completely.
pub async fn serve(session: &mut Session, app: &App) -> pingora::Result<()> {
    if session.req_header().uri.path() == "/" && app.web.enabled() {
        return crate::web::serve_page(session, &app.web).await;
    }
    let body = serde_json::json!({"error": "not_found", "message": "There is no such endpoint."});
    respond_json(session, 404, &body).await
}

/// Writes a complete JSON response with `Content-Length`.
pub async fn respond_json(
    session: &mut Session,
    status: u16,
    body: &serde_json::Value,
) -> pingora::Result<()> {
    let bytes = Bytes::from(serde_json::to_vec(body).unwrap_or_default());
    let mut header = ResponseHeader::build(status, Some(3))?;
    header.insert_header("content-type", "application/json")?;
    header.insert_header("content-length", bytes.len().to_string())?;
    session
        .write_response_header(Box::new(header), false)
        .await?;
    session.write_response_body(Some(bytes), true).await
}
