//! The weather tool of `examples/weather.rs`, written for rmcp 3.11 as its documentation shows,
//! served over stdio. `tools/side_by_side.sh` compiles it and counts the lines between the
//! markers, as it counts the same tool in `examples/weather.rs`.

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{Icon, MetaObject};
use rmcp::{object, schemars, tool, tool_router, ServiceExt};
use serde::{Deserialize, Serialize};

/// Each station: its place, the temperature in °C, the conditions.
const PLACES: [(&str, i64, &str); 2] = [("Oslo", 12, "light rain"), ("Lima", 19, "overcast")];

/// The icon `examples/weather.rs` shows: a sun, inline.
fn sun() -> Icon {
    const SVG: &str = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAxNiAxNiI+PGNpcmNsZSBjeD0iOCIgY3k9IjgiIHI9IjYiIGZpbGw9IiNmNWI0MDAiLz48L3N2Zz4=";
    Icon::new(SVG)
        .with_mime_type("image/svg+xml")
        .with_sizes(vec!["any".into()])
}

// side-by-side: begin
/// Where to read the weather.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Query {
    /// The place, as its station is named (any case).
    #[schemars(length(min = 1, max = 64))]
    place: String,
}

/// The weather at a station.
#[derive(Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Report {
    /// The station's place.
    place: &'static str,
    /// The temperature, in °C.
    celsius: i64,
    /// The conditions, in words.
    conditions: &'static str,
}

#[derive(Clone, Default)]
struct Weather;

#[tool_router(server_handler)]
impl Weather {
    #[tool(
        description = "Read the current weather for a place.",
        title = "Current weather",
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false),
        icons = vec![sun()],
        meta = MetaObject(object!({"org.example/units": "metric"}))
    )]
    fn get_weather(&self, Parameters(query): Parameters<Query>) -> Result<Json<Report>, String> {
        // rmcp advertises the schema but does not enforce it: the bounds are checked here.
        let length = query.place.chars().count();
        if !(1..=64).contains(&length) {
            return Err("place must be 1 to 64 characters".into());
        }
        let found = PLACES
            .iter()
            .find(|(p, ..)| p.eq_ignore_ascii_case(&query.place));
        let (place, celsius, conditions) =
            found.ok_or_else(|| format!("no weather station for {}", query.place))?;
        Ok(Json(Report {
            place,
            celsius: *celsius,
            conditions,
        }))
    }
}
// side-by-side: end

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let running = Weather.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}
