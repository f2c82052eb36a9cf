//! Tools that change records of the run's SQLite database. Each runs only after an operator
//! approves the call, and none is offered unless a run names it.
//!
//! Table and column names are looked up in the real schema before they are quoted into SQL and
//! values are bound as parameters, as for the [records](crate::records) tools. Only tables can be
//! changed, not views; foreign keys are enforced; updates and deletes need a filter.

use toolkit::{ToolContext, ToolResult, tool};

use crate::shared::plural;
use crate::sqlite::{
    Access, ColumnInfo, ColumnValue, Filter, Kind, Object, Stop, answer, bind_value,
    check_filter_count, describe_value, find_column, find_object, objects, open, quote_identifier,
    quoted, table_columns,
};

/// Most columns one call sets.
pub const MAX_VALUES: usize = 200;

/// Inserts one record into a table.
#[tool(group = "writers", requires_approval, enabled_by_default = false)]
pub fn insert_record(
    /// The table.
    table: String,
    /// The values of the new record, one per column (columns left out get their defaults).
    values: Vec<ColumnValue>,
    context: &ToolContext,
) -> ToolResult {
    answer(|| {
        check_value_count(&values)?;
        let connection = open(context, Access::ReadWrite)?;
        let objects = objects(&connection)?;
        let object = writable(&objects, &table)?;
        let columns = table_columns(&connection, &object.name)?;
        let assignments = Assignments::new(&columns, &object.name, &values, 0)?;
        let sql = format!(
            "INSERT INTO {} ({}) VALUES ({})",
            quote_identifier(&object.name),
            assignments.columns.join(", "),
            assignments.placeholders.join(", "),
        );
        connection.execute(
            &sql,
            rusqlite::params_from_iter(assignments.parameters.iter()),
        )?;
        Ok(ToolResult::text(format!(
            "Inserted 1 row into {} (rowid {}): {}.",
            quoted(&object.name),
            connection.last_insert_rowid(),
            assignments.description
        )))
    })
}

/// Changes columns of the records of a table that match every filter. At least one filter is
/// required.
#[tool(
    group = "writers",
    requires_approval,
    enabled_by_default = false,
    preview = "preview_record_change"
)]
pub fn update_record(
    /// The table.
    table: String,
    /// 1 to 5 filters, all of which must hold: the column equals the value (null: is NULL).
    where_equals: Vec<ColumnValue>,
    /// The new values, one per column.
    values: Vec<ColumnValue>,
    context: &ToolContext,
) -> ToolResult {
    answer(|| {
        needs_filter(&where_equals, "update_record", "change")?;
        check_value_count(&values)?;
        let connection = open(context, Access::ReadWrite)?;
        let objects = objects(&connection)?;
        let object = writable(&objects, &table)?;
        let columns = table_columns(&connection, &object.name)?;
        let filter = Filter::new(&columns, &object.name, &where_equals)?;
        let assignments =
            Assignments::new(&columns, &object.name, &values, filter.parameters.len())?;
        let set: Vec<String> = assignments
            .columns
            .iter()
            .zip(&assignments.placeholders)
            .map(|(column, placeholder)| format!("{column} = {placeholder}"))
            .collect();
        let sql = format!(
            "UPDATE {} SET {}{}",
            quote_identifier(&object.name),
            set.join(", "),
            filter.sql
        );
        let parameters = filter.parameters.iter().chain(&assignments.parameters);
        let changed = connection.execute(&sql, rusqlite::params_from_iter(parameters))?;
        let name = quoted(&object.name);
        if changed == 0 {
            return Ok(ToolResult::text(format!(
                "No rows in {name}{}; nothing was updated.",
                filter.description
            )));
        }
        Ok(ToolResult::text(format!(
            "Updated {} in {name}{}: {}.",
            plural(changed, "row", "rows"),
            filter.description,
            assignments.description
        )))
    })
}

/// Deletes the records of a table that match every filter. At least one filter is required.
#[tool(
    group = "writers",
    requires_approval,
    enabled_by_default = false,
    preview = "preview_record_change"
)]
pub fn delete_record(
    /// The table.
    table: String,
    /// 1 to 5 filters, all of which must hold: the column equals the value (null: is NULL).
    where_equals: Vec<ColumnValue>,
    context: &ToolContext,
) -> ToolResult {
    answer(|| {
        needs_filter(&where_equals, "delete_record", "delete")?;
        let connection = open(context, Access::ReadWrite)?;
        let objects = objects(&connection)?;
        let object = writable(&objects, &table)?;
        let columns = table_columns(&connection, &object.name)?;
        let filter = Filter::new(&columns, &object.name, &where_equals)?;
        let sql = format!(
            "DELETE FROM {}{}",
            quote_identifier(&object.name),
            filter.sql
        );
        let deleted =
            connection.execute(&sql, rusqlite::params_from_iter(filter.parameters.iter()))?;
        let name = quoted(&object.name);
        if deleted == 0 {
            return Ok(ToolResult::text(format!(
                "No rows in {name}{}; nothing was deleted.",
                filter.description
            )));
        }
        Ok(ToolResult::text(format!(
            "Deleted {} from {name}{}.",
            plural(deleted, "row", "rows"),
            filter.description
        )))
    })
}

/// The table of this name; a view cannot be changed.
fn writable<'a>(objects: &'a [Object], name: &str) -> Result<&'a Object, Stop> {
    let object = find_object(objects, name)?;
    if object.kind == Kind::View {
        return Err(Stop::Refuse(format!(
            "{} is a view; only tables can be changed. list_tables shows which are tables.",
            quoted(&object.name)
        )));
    }
    Ok(object)
}

fn needs_filter(filters: &[ColumnValue], tool: &str, verb: &str) -> Result<(), Stop> {
    if filters.is_empty() {
        return Err(Stop::Refuse(format!(
            "Refused: {tool} needs at least one filter in where_equals; it does not {verb} every row."
        )));
    }
    check_filter_count(filters)
}

fn check_value_count(values: &[ColumnValue]) -> Result<(), Stop> {
    if values.is_empty() {
        return Err(Stop::Fail(
            "Error: values must set at least one column.".to_owned(),
        ));
    }
    if values.len() > MAX_VALUES {
        return Err(Stop::Fail(format!(
            "Error: values sets at most {MAX_VALUES} columns, not {}.",
            values.len()
        )));
    }
    Ok(())
}

/// Validated columns to set, their placeholders (numbered after `skip` earlier parameters), the
/// values and how they read in a message.
struct Assignments {
    columns: Vec<String>,
    placeholders: Vec<String>,
    parameters: Vec<rusqlite::types::Value>,
    description: String,
}

impl Assignments {
    fn new(
        columns: &[ColumnInfo],
        table: &str,
        values: &[ColumnValue],
        skip: usize,
    ) -> Result<Self, Stop> {
        let mut seen: Vec<&str> = Vec::with_capacity(values.len());
        let mut assignments = Self {
            columns: Vec::with_capacity(values.len()),
            placeholders: Vec::with_capacity(values.len()),
            parameters: Vec::with_capacity(values.len()),
            description: String::new(),
        };
        let mut described = Vec::with_capacity(values.len());
        for value in values {
            let column = find_column(columns, table, &value.column)?;
            if seen.contains(&column.name.as_str()) {
                return Err(Stop::Fail(format!(
                    "Error: values sets column {} more than once.",
                    quoted(&column.name)
                )));
            }
            seen.push(&column.name);
            assignments.columns.push(quote_identifier(&column.name));
            assignments
                .parameters
                .push(bind_value(value.value.as_ref(), column.is_boolean()));
            assignments
                .placeholders
                .push(format!("?{}", skip + assignments.parameters.len()));
            described.push(format!(
                "{} = {}",
                column.name,
                value
                    .value
                    .as_ref()
                    .map_or_else(|| "null".to_owned(), describe_value)
            ));
        }
        assignments.description = described.join(", ");
        Ok(assignments)
    }
}
