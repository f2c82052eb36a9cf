//! Small utilities: arithmetic, units, encodings, identifiers, URLs and dates.

use std::fmt::Write as _;

use base64::Engine as _;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use evalexpr::{
    ContextWithMutableFunctions as _, ContextWithMutableVariables as _, DefaultNumericTypes,
    EvalexprError, Function, HashMapContext, Value,
};
use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;
use jiff::{Span, Timestamp, Unit, ZonedDateTime as Zoned};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolkit::{Table, ToolArtifact, ToolResult, tool};

use crate::shared::{check_range, hex, number, plural, table_error};
use toolkit::secrets;

/// Longest expression `calculate` accepts, in bytes.
const EXPRESSION_LIMIT: usize = 500;
/// Deepest nesting of parentheses `calculate` accepts.
const NESTING_LIMIT: usize = 32;
/// Largest text `base64` takes, in bytes.
const BASE64_LIMIT: usize = 1_000_000;
/// Most bytes of a non-text decoding shown as hex.
const HEX_LIMIT: usize = 2_048;

type Context = HashMapContext<DefaultNumericTypes>;
type UnaryFn = fn(f64) -> f64;
type ShiftFn = fn(i64, u32) -> Option<i64>;

/// The evaluation context: constants and short names for the math functions; no variables can
/// be assigned, since it is only ever passed immutably.
fn calculator() -> Result<Context, EvalexprError<DefaultNumericTypes>> {
    let mut context = Context::new();
    for (name, value) in [
        ("pi", std::f64::consts::PI),
        ("e", std::f64::consts::E),
        ("tau", std::f64::consts::TAU),
    ] {
        context.set_value(name.to_owned(), Value::Float(value))?;
    }
    let unary: [(&str, UnaryFn); 14] = [
        ("sqrt", f64::sqrt),
        ("cbrt", f64::cbrt),
        ("abs", f64::abs),
        ("ln", f64::ln),
        ("log10", f64::log10),
        ("log2", f64::log2),
        ("exp", f64::exp),
        ("sin", f64::sin),
        ("cos", f64::cos),
        ("tan", f64::tan),
        ("asin", f64::asin),
        ("acos", f64::acos),
        ("atan", f64::atan),
        ("trunc", f64::trunc),
    ];
    for (name, function) in unary {
        context.set_function(
            name.to_owned(),
            Function::new(move |argument: &Value<DefaultNumericTypes>| {
                Ok(Value::Float(function(argument.as_number()?)))
            }),
        )?;
    }
    // evalexpr's own `shl` and `shr` overflow (a panic) on shifts outside 0..64.
    let shifts: [(&str, ShiftFn); 2] = [("shl", i64::checked_shl), ("shr", i64::checked_shr)];
    for (name, shift) in shifts {
        context.set_function(
            name.to_owned(),
            Function::new(move |arguments: &Value<DefaultNumericTypes>| {
                let pair = arguments.as_fixed_len_tuple(2)?;
                let (value, by) = (pair[0].as_int()?, pair[1].as_int()?);
                u32::try_from(by)
                    .ok()
                    .and_then(|by| shift(value, by))
                    .map(Value::Int)
                    .ok_or_else(|| {
                        EvalexprError::CustomMessage(format!(
                            "a shift is by 0 to 63 bits, not {by}."
                        ))
                    })
            }),
        )?;
    }
    // evalexpr's own `math::abs` overflows (a panic) on the smallest integer.
    context.set_function(
        "math::abs".to_owned(),
        Function::new(|argument: &Value<DefaultNumericTypes>| match argument {
            Value::Int(value) => value.checked_abs().map(Value::Int).ok_or_else(|| {
                EvalexprError::CustomMessage(format!(
                    "the absolute value of {value} is not a 64-bit integer."
                ))
            }),
            other => Ok(Value::Float(other.as_number()?.abs())),
        }),
    )?;
    // evalexpr's own `str::substring` slices at byte offsets: inside a character, a panic.
    context.set_function(
        "str::substring".to_owned(),
        Function::new(|arguments: &Value<DefaultNumericTypes>| {
            let arguments = arguments.as_ranged_len_tuple(2..=3)?;
            let text = arguments[0].as_string()?;
            let offset = |value: &Value<DefaultNumericTypes>| {
                let offset = value.as_int()?;
                usize::try_from(offset).map_err(|_| EvalexprError::OutOfBoundsAccess)
            };
            let start = offset(&arguments[1])?;
            let end = match arguments.get(2) {
                Some(end) => offset(end)?,
                None => text.len(),
            };
            if start > end || end > text.len() {
                return Err(EvalexprError::OutOfBoundsAccess);
            }
            match text.get(start..end) {
                Some(part) => Ok(Value::from(part)),
                None => Err(EvalexprError::CustomMessage(format!(
                    "str::substring takes byte offsets on character boundaries; {start}..{end} cuts a character of {text:?}."
                ))),
            }
        }),
    )?;
    Ok(context)
}

/// The first number in `value` that is not finite (infinite or NaN), tuples searched in order.
fn not_finite(value: &Value<DefaultNumericTypes>) -> Option<f64> {
    match value {
        Value::Float(float) if !float.is_finite() => Some(*float),
        Value::Tuple(values) => values.iter().find_map(not_finite),
        _ => None,
    }
}

/// Evaluates an arithmetic or logical expression: `+ - * / % ^`, comparisons, `&& || !`,
/// parentheses, the constants `pi`, `e` and `tau`, and functions such as `sqrt`, `ln`, `sin`,
/// `abs`, `floor`, `round`, `min(a, b)`, `max(a, b)`, `math::pow(a, b)`. Integers stay integers
/// (`7 / 2` is `3`; write `7.0 / 2` for `3.5`). No variables, assignments or loops.
#[tool(read_only, idempotent, group = "utility")]
pub fn calculate(
    /// The expression, such as `2 * (3 + 4) ^ 2` or `sqrt(2) / 2`.
    expression: String,
) -> ToolResult {
    let trimmed = expression.trim();
    if trimmed.is_empty() {
        return ToolResult::error("Error: the expression is empty.");
    }
    if trimmed.len() > EXPRESSION_LIMIT {
        return ToolResult::error(format!(
            "Error: the expression is {} bytes long; the limit is {EXPRESSION_LIMIT}.",
            trimmed.len()
        ));
    }
    let mut depth = 0_usize;
    let mut deepest = 0_usize;
    for c in trimmed.chars() {
        match c {
            '(' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if deepest > NESTING_LIMIT {
        return ToolResult::error(format!(
            "Error: parentheses nest {deepest} deep; the limit is {NESTING_LIMIT}."
        ));
    }
    let context = match calculator() {
        Ok(context) => context,
        Err(error) => return ToolResult::error(format!("Error: {error}")),
    };
    match evalexpr::eval_with_context(trimmed, &context) {
        Ok(Value::Empty) => ToolResult::error("Error: the expression has no value."),
        Ok(value) => match not_finite(&value) {
            None => ToolResult::text(format!("{trimmed} = {}", show_value(&value))),
            Some(float) => ToolResult::error(if float.is_nan() {
                "Error: cannot evaluate: the result is not a finite number (NaN).".to_owned()
            } else {
                format!(
                    "Error: cannot evaluate: the result is not a finite number ({}; floats reach about ±1.8e308).",
                    number(float)
                )
            }),
        },
        Err(EvalexprError::ContextNotMutable) => ToolResult::error(
            "Error: cannot evaluate: assignments are not allowed; write the value itself.",
        ),
        Err(EvalexprError::CustomMessage(message)) => {
            ToolResult::error(format!("Error: cannot evaluate: {message}"))
        }
        Err(error) => ToolResult::error(format!("Error: cannot evaluate: {error}")),
    }
}

fn show_value(value: &Value<DefaultNumericTypes>) -> String {
    match value {
        Value::Float(float) => number(*float),
        Value::Tuple(values) => {
            let values: Vec<String> = values.iter().map(show_value).collect();
            format!("({})", values.join(", "))
        }
        other => other.to_string(),
    }
}

/// What a unit measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dimension {
    Length,
    Mass,
    Time,
    Data,
    Area,
    Volume,
    Speed,
    Temperature,
    Energy,
    Pressure,
}

impl Dimension {
    fn name(self) -> &'static str {
        match self {
            Dimension::Length => "length",
            Dimension::Mass => "mass",
            Dimension::Time => "time",
            Dimension::Data => "data",
            Dimension::Area => "area",
            Dimension::Volume => "volume",
            Dimension::Speed => "speed",
            Dimension::Temperature => "temperature",
            Dimension::Energy => "energy",
            Dimension::Pressure => "pressure",
        }
    }
}

/// A unit: its names (lowercase), dimension, and `base = value * factor + offset`.
struct Measure {
    names: &'static [&'static str],
    dimension: Dimension,
    factor: f64,
    offset: f64,
}

const fn unit(names: &'static [&'static str], dimension: Dimension, factor: f64) -> Measure {
    Measure {
        names,
        dimension,
        factor,
        offset: 0.0,
    }
}

/// Every unit `convert_units` knows. Base units: metre, kilogram, second, byte, square metre,
/// litre, metre per second, kelvin, joule, pascal.
const UNITS: &[Measure] = {
    use Dimension::{Area, Data, Energy, Length, Mass, Pressure, Speed, Time, Volume};
    &[
        unit(&["m", "meter", "meters", "metre", "metres"], Length, 1.0),
        unit(
            &["km", "kilometer", "kilometers", "kilometre", "kilometres"],
            Length,
            1_000.0,
        ),
        unit(
            &[
                "cm",
                "centimeter",
                "centimeters",
                "centimetre",
                "centimetres",
            ],
            Length,
            0.01,
        ),
        unit(
            &[
                "mm",
                "millimeter",
                "millimeters",
                "millimetre",
                "millimetres",
            ],
            Length,
            0.001,
        ),
        unit(
            &["um", "µm", "micrometer", "micrometers", "micron", "microns"],
            Length,
            1e-6,
        ),
        unit(&["nm", "nanometer", "nanometers"], Length, 1e-9),
        unit(&["mi", "mile", "miles"], Length, 1_609.344),
        unit(&["yd", "yard", "yards"], Length, 0.914_4),
        unit(&["ft", "foot", "feet"], Length, 0.304_8),
        unit(&["in", "inch", "inches"], Length, 0.025_4),
        unit(&["nmi", "nautical mile", "nautical miles"], Length, 1_852.0),
        unit(&["kg", "kilogram", "kilograms"], Mass, 1.0),
        unit(&["g", "gram", "grams"], Mass, 0.001),
        unit(&["mg", "milligram", "milligrams"], Mass, 1e-6),
        unit(&["ug", "µg", "microgram", "micrograms"], Mass, 1e-9),
        unit(&["t", "tonne", "tonnes", "metric ton"], Mass, 1_000.0),
        unit(&["lb", "lbs", "pound", "pounds"], Mass, 0.453_592_37),
        unit(&["oz", "ounce", "ounces"], Mass, 0.028_349_523_125),
        unit(&["st", "stone", "stones"], Mass, 6.350_293_18),
        unit(&["ns", "nanosecond", "nanoseconds"], Time, 1e-9),
        unit(&["us", "µs", "microsecond", "microseconds"], Time, 1e-6),
        unit(&["ms", "millisecond", "milliseconds"], Time, 0.001),
        unit(&["s", "sec", "second", "seconds"], Time, 1.0),
        unit(&["min", "minute", "minutes"], Time, 60.0),
        unit(&["h", "hr", "hour", "hours"], Time, 3_600.0),
        unit(&["d", "day", "days"], Time, 86_400.0),
        unit(&["wk", "week", "weeks"], Time, 604_800.0),
        unit(&["yr", "year", "years"], Time, 31_557_600.0),
        unit(&["bit", "bits"], Data, 0.125),
        unit(&["b", "byte", "bytes"], Data, 1.0),
        unit(&["kb", "kilobyte", "kilobytes"], Data, 1e3),
        unit(&["mb", "megabyte", "megabytes"], Data, 1e6),
        unit(&["gb", "gigabyte", "gigabytes"], Data, 1e9),
        unit(&["tb", "terabyte", "terabytes"], Data, 1e12),
        unit(&["kib", "kibibyte", "kibibytes"], Data, 1_024.0),
        unit(&["mib", "mebibyte", "mebibytes"], Data, 1_048_576.0),
        unit(&["gib", "gibibyte", "gibibytes"], Data, 1_073_741_824.0),
        unit(&["tib", "tebibyte", "tebibytes"], Data, 1_099_511_627_776.0),
        unit(
            &["m2", "m²", "sqm", "square meter", "square meters"],
            Area,
            1.0,
        ),
        unit(
            &["km2", "km²", "square kilometer", "square kilometers"],
            Area,
            1e6,
        ),
        unit(
            &["cm2", "cm²", "square centimeter", "square centimeters"],
            Area,
            1e-4,
        ),
        unit(&["ha", "hectare", "hectares"], Area, 1e4),
        unit(&["acre", "acres"], Area, 4_046.856_422_4),
        unit(
            &["ft2", "ft²", "sqft", "square foot", "square feet"],
            Area,
            0.092_903_04,
        ),
        unit(
            &["mi2", "mi²", "square mile", "square miles"],
            Area,
            2_589_988.110_336,
        ),
        unit(&["l", "liter", "liters", "litre", "litres"], Volume, 1.0),
        unit(
            &[
                "ml",
                "milliliter",
                "milliliters",
                "millilitre",
                "millilitres",
            ],
            Volume,
            0.001,
        ),
        unit(&["cl", "centiliter", "centiliters"], Volume, 0.01),
        unit(
            &["m3", "m³", "cubic meter", "cubic meters"],
            Volume,
            1_000.0,
        ),
        unit(&["gal", "gallon", "gallons"], Volume, 3.785_411_784),
        unit(&["qt", "quart", "quarts"], Volume, 0.946_352_946),
        unit(&["pt", "pint", "pints"], Volume, 0.473_176_473),
        unit(&["cup", "cups"], Volume, 0.236_588_236_5),
        unit(
            &["floz", "fl oz", "fluid ounce", "fluid ounces"],
            Volume,
            0.029_573_529_562_5,
        ),
        unit(&["m/s", "mps", "meters per second"], Speed, 1.0),
        unit(
            &["km/h", "kph", "kmh", "kilometers per hour"],
            Speed,
            1.0 / 3.6,
        ),
        unit(&["mph", "miles per hour"], Speed, 0.447_04),
        unit(&["kn", "kt", "knot", "knots"], Speed, 1_852.0 / 3_600.0),
        unit(&["ft/s", "fps", "feet per second"], Speed, 0.304_8),
        Measure {
            names: &["k", "kelvin"],
            dimension: Dimension::Temperature,
            factor: 1.0,
            offset: 0.0,
        },
        Measure {
            names: &["c", "°c", "celsius"],
            dimension: Dimension::Temperature,
            factor: 1.0,
            offset: 273.15,
        },
        Measure {
            names: &["f", "°f", "fahrenheit"],
            dimension: Dimension::Temperature,
            factor: 5.0 / 9.0,
            offset: 459.67 * 5.0 / 9.0,
        },
        unit(&["j", "joule", "joules"], Energy, 1.0),
        unit(&["kj", "kilojoule", "kilojoules"], Energy, 1_000.0),
        unit(&["cal", "calorie", "calories"], Energy, 4.184),
        unit(&["kcal", "kilocalorie", "kilocalories"], Energy, 4_184.0),
        unit(&["wh", "watt hour", "watt hours"], Energy, 3_600.0),
        unit(
            &["kwh", "kilowatt hour", "kilowatt hours"],
            Energy,
            3_600_000.0,
        ),
        unit(
            &["ev", "electronvolt", "electronvolts"],
            Energy,
            1.602_176_634e-19,
        ),
        unit(&["pa", "pascal", "pascals"], Pressure, 1.0),
        unit(&["kpa", "kilopascal", "kilopascals"], Pressure, 1_000.0),
        unit(&["bar", "bars"], Pressure, 100_000.0),
        unit(&["atm", "atmosphere", "atmospheres"], Pressure, 101_325.0),
        unit(&["psi"], Pressure, 6_894.757_293_168),
        unit(&["mmhg"], Pressure, 133.322_387_415),
    ]
};

fn find_unit(name: &str) -> Option<&'static Measure> {
    let wanted = name.trim().to_lowercase();
    UNITS
        .iter()
        .find(|unit| unit.names.contains(&wanted.as_str()))
}

/// Converts a value between units of length, mass, time, data (`kB` is 1000 bytes, `KiB`
/// 1024), area, volume (US gallons), speed, temperature (`C`, `F`, `K`), energy and pressure.
/// Unit names are case-insensitive: `km`, `miles`, `lb`, `GiB`, `°F`, `kWh`, `psi`.
#[tool(
    read_only,
    idempotent,
    group = "utility",
    title = "Converts a value between units"
)]
pub fn convert_units(
    /// The value to convert.
    value: f64,
    /// The unit of the value.
    from: String,
    /// The unit to convert to.
    to: String,
) -> ToolResult {
    if !value.is_finite() {
        return ToolResult::error("Error: the value must be a finite number.");
    }
    let unknown = |name: &str| {
        ToolResult::error(format!(
            "Error: unknown unit \"{name}\"; try a symbol such as km, mi, kg, lb, s, h, MB, GiB, ha, l, gal, km/h, C, F, K, kWh, bar or psi."
        ))
    };
    let Some(source) = find_unit(&from) else {
        return unknown(&from);
    };
    let Some(target) = find_unit(&to) else {
        return unknown(&to);
    };
    if source.dimension != target.dimension {
        return ToolResult::error(format!(
            "Error: cannot convert {} ({}) to {} ({}).",
            from.trim(),
            source.dimension.name(),
            to.trim(),
            target.dimension.name()
        ));
    }
    let base = value * source.factor + source.offset;
    let converted = (base - target.offset) / target.factor;
    if source.dimension == Dimension::Temperature && base < 0.0 {
        return ToolResult::error(format!(
            "Error: {} {} is below absolute zero.",
            number(value),
            from.trim()
        ));
    }
    ToolResult::text(format!(
        "{} {} = {} {}",
        number(value),
        from.trim(),
        number(converted),
        to.trim()
    ))
}

/// Which way `base64` converts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Base64Mode {
    /// Text to Base64.
    Encode,
    /// Base64 to text.
    Decode,
}

/// Which Base64 alphabet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Base64Alphabet {
    /// `+` and `/` (RFC 4648 section 4).
    Standard,
    /// `-` and `_` (RFC 4648 section 5, for URLs and file names).
    UrlSafe,
}

/// Encodes text (its UTF-8 bytes) as Base64, or decodes Base64 (padded or not; whitespace
/// ignored) to text; bytes that are not UTF-8 are shown as hex.
#[tool(
    read_only,
    idempotent,
    group = "utility",
    name = "base64",
    title = "Encodes text as Base64, or decodes Base64 to text"
)]
pub fn base64_convert(
    /// The text to encode, or the Base64 to decode.
    text: String,
    /// `encode` or `decode`.
    #[arg(default = Base64Mode::Encode)]
    mode: Base64Mode,
    /// The alphabet.
    #[arg(default = Base64Alphabet::Standard)]
    alphabet: Base64Alphabet,
) -> ToolResult {
    if text.len() > BASE64_LIMIT {
        return ToolResult::error(format!(
            "Error: the text is {} bytes long; the limit is {BASE64_LIMIT}.",
            text.len()
        ));
    }
    let config = GeneralPurposeConfig::new()
        .with_encode_padding(true)
        .with_decode_padding_mode(DecodePaddingMode::Indifferent);
    let engine = match alphabet {
        Base64Alphabet::Standard => GeneralPurpose::new(&alphabet::STANDARD, config),
        Base64Alphabet::UrlSafe => GeneralPurpose::new(&alphabet::URL_SAFE, config),
    };
    match mode {
        Base64Mode::Encode => ToolResult::text(engine.encode(text.as_bytes())),
        Base64Mode::Decode => {
            let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
            match engine.decode(compact.as_bytes()) {
                Ok(bytes) => match String::from_utf8(bytes) {
                    Ok(text) => ToolResult::text(text),
                    Err(error) => {
                        let bytes = error.into_bytes();
                        let shown = &bytes[..bytes.len().min(HEX_LIMIT)];
                        let ellipsis = if bytes.len() > HEX_LIMIT { "…" } else { "" };
                        ToolResult::text(format!(
                            "{}, not UTF-8 text; hex: {}{ellipsis}",
                            plural(bytes.len(), "byte", "bytes"),
                            hex(shown)
                        ))
                    }
                },
                Err(error) => ToolResult::error(format!(
                    "Error: not valid Base64: {}.",
                    error.to_string().trim_end_matches('.')
                )),
            }
        }
    }
}

/// A UUID version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum UuidVersion {
    /// Random.
    V4,
    /// Time-ordered: sorts by creation time (RFC 9562).
    V7,
}

/// Generates UUIDs, one a line: version 4 (random) or 7 (time-ordered).
#[tool(read_only, group = "utility", name = "uuid")]
pub fn generate_uuid(
    /// The version.
    #[arg(default = UuidVersion::V4)]
    version: UuidVersion,
    /// How many (1 to 100).
    #[arg(default = 1)]
    count: usize,
) -> ToolResult {
    if let Err(result) = check_range("count", count, 1, 100) {
        return result;
    }
    let ids: Vec<String> = (0..count)
        .map(|_| match version {
            UuidVersion::V4 => uuid::Uuid::new_v4(),
            UuidVersion::V7 => uuid::Uuid::now_v7(),
        })
        .map(|id| id.hyphenated().to_string())
        .collect();
    ToolResult::text(ids.join("\n"))
}

/// Splits a URL into its parts (scheme, user, host, port, path, query, fragment) and its query
/// parameters, decoded. A password in the URL is shown as `[REDACTED]`.
#[tool(
    read_only,
    idempotent,
    group = "utility",
    title = "Splits a URL into its parts"
)]
pub fn url_parse(
    /// The URL, absolute.
    url: String,
) -> ToolResult {
    let parsed = match url::Url::parse(url.trim()) {
        Ok(parsed) => parsed,
        Err(error) => return ToolResult::error(format!("Error: not a valid URL: {error}.")),
    };
    let mut parts: Vec<(&str, String)> = vec![("scheme", parsed.scheme().to_owned())];
    if !parsed.username().is_empty() {
        parts.push(("username", parsed.username().to_owned()));
    }
    if parsed.password().is_some() {
        parts.push(("password", secrets::SECRET_MASK.to_owned()));
    }
    if let Some(host) = parsed.host_str() {
        parts.push(("host", host.to_owned()));
    }
    match (parsed.port(), parsed.port_or_known_default()) {
        (Some(port), _) => parts.push(("port", port.to_string())),
        (None, Some(port)) => parts.push(("port", format!("{port} (default)"))),
        (None, None) => {}
    }
    parts.push(("path", parsed.path().to_owned()));
    if let Some(query) = parsed.query() {
        parts.push(("query", secrets::mask_secrets(query).into_owned()));
    }
    if let Some(fragment) = parsed.fragment() {
        parts.push(("fragment", fragment.to_owned()));
    }
    let parameters: Vec<[String; 2]> = parsed
        .query_pairs()
        .map(|(name, value)| {
            let value = if secrets::is_secret_name(&name) {
                secrets::SECRET_MASK.to_owned()
            } else {
                secrets::mask_secrets(&value).into_owned()
            };
            [name.into_owned(), value]
        })
        .collect();
    let mut content = parts
        .iter()
        .map(|(part, value)| format!("{part}: {value}"))
        .collect::<Vec<_>>()
        .join("\n");
    if !parameters.is_empty() {
        let listed: Vec<String> = parameters
            .iter()
            .map(|[name, value]| format!("{name}={value}"))
            .collect();
        let _ = write!(
            content,
            "\n{}: {}",
            plural(parameters.len(), "query parameter", "query parameters"),
            listed.join(", ")
        );
    }
    let parts_table = match Table::from_rows(
        ["part", "value"],
        parts
            .into_iter()
            .map(|(part, value)| [part.to_owned(), value]),
    ) {
        Ok(table) => table,
        Err(error) => return table_error(&error),
    };
    let mut artifacts = vec![ToolArtifact::table("URL parts", parts_table)];
    if !parameters.is_empty() {
        match Table::from_rows(["name", "value"], parameters) {
            Ok(table) => artifacts.push(ToolArtifact::table("Query parameters", table)),
            Err(error) => return table_error(&error),
        }
    }
    ToolResult::text_with(content, artifacts)
}

/// A point in time as given: a calendar date, a date-time without zone, or an instant.
enum Moment {
    Date(Date),
    Civil(DateTime),
    Instant(Zoned),
}

fn moment(text: &str) -> Option<Moment> {
    let text = text.trim();
    if let Ok(zoned) = text.parse::<Zoned>() {
        return Some(Moment::Instant(zoned));
    }
    if let Ok(instant) = text.parse::<Timestamp>() {
        return Some(Moment::Instant(instant.to_zoned_datetime(TimeZone::UTC)));
    }
    // A date parser would read a date-time as its date alone.
    if text.contains(['T', 't', ' ']) {
        text.parse::<DateTime>().ok().map(Moment::Civil)
    } else {
        text.parse::<Date>().ok().map(Moment::Date)
    }
}

/// The difference between two dates or times, in calendar units (years, months, days, and
/// hours to seconds for times) and in total days or seconds. Takes dates (`2024-01-31`),
/// date-times (`2024-01-31T09:30`) or instants with an offset or zone
/// (`2024-01-31T09:30:00Z`, `2024-03-10T12:00[Europe/Paris]`); both must be of one kind.
#[tool(
    read_only,
    idempotent,
    group = "utility",
    title = "The difference between two dates or times"
)]
pub fn date_diff(
    /// The earlier date or time.
    start: String,
    /// The later date or time (an earlier one gives a negative difference).
    end: String,
) -> ToolResult {
    let read = |text: &str| {
        moment(text).ok_or_else(|| {
            ToolResult::error(format!(
                "Error: cannot read \"{}\" as a date (2024-01-31), a date-time (2024-01-31T09:30) or an instant (2024-01-31T09:30:00Z).",
                text.trim()
            ))
        })
    };
    let (first, second) = match (read(&start), read(&end)) {
        (Ok(first), Ok(second)) => (first, second),
        (Err(result), _) | (_, Err(result)) => return result,
    };
    let outcome = match (first, second) {
        (Moment::Date(a), Moment::Date(b)) => date_span(a, b),
        (Moment::Date(a), Moment::Civil(b)) => {
            civil_span(a.to_datetime(jiff::civil::Time::midnight()), b)
        }
        (Moment::Civil(a), Moment::Date(b)) => {
            civil_span(a, b.to_datetime(jiff::civil::Time::midnight()))
        }
        (Moment::Civil(a), Moment::Civil(b)) => civil_span(a, b),
        (Moment::Instant(a), Moment::Instant(b)) => instant_span(&a, &b),
        _ => {
            return ToolResult::error(
                "Error: compare like with like: both with an offset or zone, or neither.",
            );
        }
    };
    match outcome {
        Ok((calendar, total)) => ToolResult::text(format!(
            "From {} to {}: {calendar} (in all {total}).",
            start.trim(),
            end.trim()
        )),
        Err(error) => ToolResult::error(format!("Error: cannot compute the difference: {error}.")),
    }
}

fn date_span(a: Date, b: Date) -> Result<(String, String), jiff::Error> {
    let calendar = a.until((Unit::Year, b))?;
    let days = a.until((Unit::Day, b))?.get_days();
    Ok((
        span_words(&calendar),
        plural_i64(i64::from(days), "day", "days"),
    ))
}

fn civil_span(a: DateTime, b: DateTime) -> Result<(String, String), jiff::Error> {
    let calendar = a.until((Unit::Year, b))?;
    let seconds = a.until((Unit::Second, b))?.get_seconds();
    Ok((
        span_words(&calendar),
        plural_i64(seconds, "second", "seconds"),
    ))
}

fn instant_span(a: &Zoned, b: &Zoned) -> Result<(String, String), jiff::Error> {
    // Calendar units are counted in the first moment's zone.
    let b_here = b.with_time_zone(a.time_zone().clone());
    let calendar = a.until((Unit::Year, &b_here))?;
    let seconds = a
        .timestamp()
        .until((Unit::Second, b.timestamp()))?
        .get_seconds();
    Ok((
        span_words(&calendar),
        plural_i64(seconds, "second", "seconds"),
    ))
}

fn plural_i64(count: i64, one: &str, many: &str) -> String {
    if count.abs() == 1 {
        format!("{count} {one}")
    } else {
        format!("{count} {many}")
    }
}

/// `1 year, 2 months, 3 days`; `minus …` when negative; `no time` when zero.
fn span_words(span: &Span) -> String {
    let negative = span.is_negative();
    let span = span.abs();
    let parts: Vec<String> = [
        (i64::from(span.get_years()), "year", "years"),
        (i64::from(span.get_months()), "month", "months"),
        (i64::from(span.get_weeks()), "week", "weeks"),
        (i64::from(span.get_days()), "day", "days"),
        (i64::from(span.get_hours()), "hour", "hours"),
        (span.get_minutes(), "minute", "minutes"),
        (span.get_seconds(), "second", "seconds"),
    ]
    .into_iter()
    .filter(|(value, ..)| *value != 0)
    .map(|(value, one, many)| plural_i64(value, one, many))
    .collect();
    if parts.is_empty() {
        return "no time".to_owned();
    }
    let words = parts.join(", ");
    if negative {
        format!("minus {words}")
    } else {
        words
    }
}

/// The person's answer to `ask_user`'s question.
#[derive(Deserialize, JsonSchema)]
struct Reply {
    /// Your answer.
    answer: String,
}

/// The longest question `ask_user` puts, in bytes.
const QUESTION_LIMIT: usize = 2_000;

/// Asks the person you work for a question and gives their answer: for what only they know (a
/// preference, a missing detail, which of several ways to go). Ask one clear question at a
/// time; if nobody can be asked here, decide without the answer.
#[tool(read_only, group = "utility")]
pub fn ask_user(
    /// The question, as the person reads it.
    question: String,
    context: &toolkit::ToolContext,
) -> Result<String, String> {
    use toolkit::talk::Unanswered;
    if question.trim().is_empty() {
        return Err("Error: the question is empty; write the question to ask.".to_owned());
    }
    if question.len() > QUESTION_LIMIT {
        return Err(format!(
            "Error: the question is {} bytes; ask at most {QUESTION_LIMIT} bytes, one question at a time.",
            question.len()
        ));
    }
    match context.ask::<Reply>("answer", &question) {
        Ok(reply) => Ok(reply.answer),
        Err(Unanswered::Declined(_)) => Ok("The person declined to answer.".to_owned()),
        Err(Unanswered::Cancelled(_)) => {
            Ok("The person dismissed the question without answering.".to_owned())
        }
        Err(Unanswered::NobodyToAsk(_)) => Err(
            "Error: no person can be asked here (nobody answers questions in this run); decide without their answer."
                .to_owned(),
        ),
        // Waiting: the person is asked, and this call runs again with the answer.
        Err(unanswered) => Err(unanswered.to_string()),
    }
}
