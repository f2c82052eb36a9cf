//! Masking of secret-shaped strings and e-mail addresses: one rule set for every place that must
//! not show a secret (toolkit's `SecretFilter` on everything a tool sends to the model, tools
//! that read environments or logs, the audit copy's `redacted` level). `toolkit` depends on this
//! crate by default (its `secrets` feature) and re-exports it as `toolkit::secrets`; a false
//! positive or a missed shape is fixed here, without a change to the core.
//!
//! ```
//! use toolkit_secrets::{mask, mask_secrets, is_secret_name};
//!
//! assert_eq!(
//!     mask("login ada@example.com with password=hunter2"),
//!     "login [EMAIL] with password=[REDACTED]"
//! );
//! assert_eq!(
//!     mask_secrets("mysql -u root -pS3cret! shop; curl -u ada:Pa55 https://x.test"),
//!     "mysql -u root -p[REDACTED] shop; curl -u ada:[REDACTED] https://x.test"
//! );
//! assert!(is_secret_name("OPENAI_API_KEY"));
//! assert!(!is_secret_name("HOME"));
//! ```
//!
//! # What is masked
//!
//! [`mask_secrets`] applies a table of named rules in order, each replacing what it finds with
//! [`SECRET_MASK`] (`[REDACTED]`, the one mask text); [`rule_names`] lists them. They cover:
//!
//! - **private keys**: PEM blocks of every kind (RSA, EC, DSA, PKCS#8, encrypted, OpenSSH),
//!   PGP private key blocks and `PuTTY` private lines, also written on one line with `\n` escapes
//!   (a service account's JSON);
//! - **passwords in URLs**, also when they hold `/`, `@` or a space
//!   (`postgres://u:p@ss@db/x` gives `postgres://u:[REDACTED]@db/x`), and Oracle `user/pw@db`
//!   logins;
//! - **credentials of HTTP headers**: `Authorization` and `Proxy-Authorization` (`Bearer`,
//!   `Basic`, `Token`, `Digest`, ...), whole `Cookie` and `Set-Cookie` header lines;
//! - **fields whose name says secret**, in every common syntax: `name=value`, `name: value`,
//!   `name := value`, `name => value`, `name: str = "value"`, quoted JSON, YAML, TOML and INI
//!   names and values (also inside a JSON string, `\"password\": \"…\"`), `export NAME=…`,
//!   connection strings (`Password=…;`, `AccountKey=…;`), XML elements
//!   (`<password>…</password>`), `<add key="DbPassword" value="…"/>`, name and value pairs
//!   (`name: DB_PASSWORD` then `value: …`), calls (`define('DB_PASSWORD', '…')`) and flags
//!   (`--password PW`, `--token=…`). A name says secret when one of its words (split at `_`, `-`,
//!   `.`, `:` and camel case) is password, passwd, pwd, pass, passphrase, secret, token,
//!   credentials, auth, authorization, hmac, salt, signature, psk, cookie, a session id, a DSN,
//!   or a key qualified as secret (api, access, private, signing, encryption, master, account,
//!   client, ...), and no word after it describes the secret instead of holding it
//!   (`token_type`, `password_length`, `secret_name`, `password.txt`);
//! - **command lines**: `mysql -pPW`, `curl -u user:PW`, `sshpass -p PW`, `redis-cli -a PW`,
//!   `docker login -p PW`, `sqlcmd -P PW`, `smbclient -U user%PW`, `openssl -passin pass:PW`,
//!   `zip -P PW`, `7z -pPW`, `htpasswd -b file user PW`, `echo user:PW | chpasswd`,
//!   `ConvertTo-SecureString 'PW'`;
//! - **SQL**: `IDENTIFIED BY '…'`, `PASSWORD '…'`, `SET PASSWORD … = '…'`;
//! - **credential files**: `.netrc` and `.pgpass` lines, `requirepass` and `auth_pass`
//!   directives, and password hashes (`crypt` formats
//!   `$1$`, `$5$`, `$6$`, `$2b$`, `$y$`, `$apr1$`, `$argon2id$`, Django's `pbkdf2_sha256$`,
//!   LDAP's `{SSHA}`), as in `htpasswd` and `/etc/shadow`;
//! - **tokens of known providers by their shape**: OpenAI and Anthropic (`sk-…`), Stripe, GitHub,
//!   GitLab, Slack, Discord, Telegram, AWS, Google, Azure, JWTs, `SendGrid`, Twilio, Mailgun,
//!   Mailchimp, npm, `PyPI`, Hugging Face, Shopify, `DigitalOcean`, Vault, age, Databricks,
//!   Doppler, Linear, Notion, Postman, Pulumi, Grafana, Sentry, Atlassian, Heroku, Fly.io,
//!   `PlanetScale`, `RubyGems`, Square, Brevo, New Relic, Alibaba, Artifactory, Supabase,
//!   Tailscale, Terraform Cloud, 1Password, and webhook URLs (Slack, Discord, Microsoft Teams);
//! - **any other long token**: a run of 32 or more token characters mixing letters and digits,
//!   unless it is only hexadecimal digits and hyphens.
//!
//! Shapes bound to the start of a line, or spread over two lines, also hold after the `12: `
//! line numbers that `read_file` and `fetch_logs` put before each line.
//!
//! What stays: hexadecimal digests, commit ids and UUIDs (ids a tool computed), words that
//! merely contain a secret word (`passage`, `keyboard`, `tokenizer`, `compass`, `OAuth`),
//! `password` in prose without a value, fields that describe a secret (`max_tokens: 100`,
//! `token_type: bearer`), and values that only refer to a secret (`${DB_PASSWORD}`,
//! `$API_TOKEN`, `{{ .Values.token }}`, `os.getenv("TOKEN")`, `<your-token>`, `****`, `null`).
//!
//! Masking is idempotent (masking a masked text changes nothing), runs in time linear in the
//! text (every pattern is a `regex` automaton; a rule that judges a field's name resumes past
//! what it judged), and borrows the text when nothing matches.
//!
//! The [`corpus`] holds 171 secret shapes; this crate's `corpus` test masks each one, and
//! `toolkit-builtins`' `secrets_wire` test plants them in every place a builtin reads, in every
//! layout (CSV cells, JSON keys, diffs, blame, pages, records), reads them through every builtin
//! that can show such text through a service with toolkit's `SecretFilter`, and finds none of
//! them on the provider wire beyond the gaps it pins (and all of them without the filter).

pub mod corpus;

use std::borrow::Cow;
use std::ops::Range;
use std::sync::LazyLock;

use regex::{Captures, Regex};

/// What a secret is replaced with.
pub const SECRET_MASK: &str = "[REDACTED]";
/// What an e-mail address is replaced with.
pub const EMAIL_MASK: &str = "[EMAIL]";

/// Parts of a variable name that mark its value as a secret.
const SECRET_NAME_PARTS: &[&str] = &[
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "CREDENTIAL",
    "PRIVATE",
    "COOKIE",
    "SESSION",
    "SIGNATURE",
];

/// Whole words (between `_`) of a variable name that mark its value as a secret.
const SECRET_NAME_WORDS: &[&str] = &["AUTH", "PASS", "PAT", "DSN", "SALT", "PWD_HASH", "HMAC"];

/// Whether a name (an environment variable, a field) says its value is a secret: it contains
/// `KEY`, `TOKEN`, `SECRET`, `PASSWORD`, `CREDENTIAL`, `PRIVATE`, `COOKIE`, `SESSION`, ... or
/// has a word such as `AUTH`, `PASS` or `HMAC`, in any case.
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_NAME_PARTS.iter().any(|part| upper.contains(part))
        || upper
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|word| SECRET_NAME_WORDS.contains(&word))
}

// ---------------------------------------------------------------------------------------------
// The rules
// ---------------------------------------------------------------------------------------------

/// One named shape of secret.
struct Rule {
    /// What tests and docs call it.
    name: &'static str,
    /// The pattern. For a [`Kind::Field`] rule, its match is a field's name (group `name`) and
    /// separator, and ends where the value begins.
    pattern: &'static str,
    /// How the part to mask is found.
    kind: Kind,
}

/// How a rule finds what it masks.
#[derive(Clone, Copy)]
enum Kind {
    /// The groups named `secret…` that took part in the match, or the whole match when the
    /// pattern has no such group.
    Shape,
    /// Like `Shape`, when the part looks like a key rather than a word, a path or a digest
    /// ([`looks_like_key`]).
    Key,
    /// Like `Shape`, when the part looks like a credential rather than a word
    /// ([`looks_like_credential`]).
    Credential,
    /// The value after a field's name, read by the given grammar, when the name says secret
    /// ([`is_secret_field`]) and the value is not a reference or a placeholder.
    Field(Value, Name),
}

/// Where a [`Kind::Field`] rule's match has the field's name. `Leading` and `Word` read it as
/// the group `name` of their patterns does, without reading groups (a backtracking search per
/// match, which rules with many matches cannot afford).
#[derive(Clone, Copy)]
enum Name {
    /// In its group `name`.
    Group,
    /// At its start: name characters, or a word of prose, a space and name characters.
    Leading,
    /// The first name characters after the `-` of a flag or the `<` of a tag.
    Word,
    /// The name characters after what starts a cell (a diff's sign, a space, a separator, a
    /// tag's `>`, a quote).
    Cell,
}

/// How a field's value is read.
#[derive(Clone, Copy)]
enum Value {
    /// Quoted (masked with its quotes; a quote left open counts only at the end of the text, where
    /// a page was cut), or bare up to a space, a quote, one of `,;&<` or an escaped line break
    /// (`\n`); never a structure (`{`, `[`, `(`) or a path (`::`).
    Any,
    /// A command-line argument: quoted, or bare up to a space; never a next flag (`-…`), a
    /// placeholder or a redirection (`<…`, `>`, `|`).
    Flag,
    /// The text of an XML element, up to the closing tag, without surrounding whitespace.
    XmlText,
}

/// Key words a field's name must contain to be judged at all: a cheap first sieve, with the
/// exact judgement in [`is_secret_field`].
macro_rules! secret_stem {
    () => {
        "(?:pass|pw|psk|secret|token|key|auth|cred|hmac|salt|sig|cookie|sess|dsn)"
    };
}

/// One argument of a command line as a shell reads it: quoted parts and bare characters up to
/// a space or one of `|;&<>`, not starting with `-` (a next flag) or `[` (a mask: the next round
/// then finds the next flag on the line).
macro_rules! shell_word {
    () => {
        r#"(?:[^\s"'|;&<>\[-]|"[^"\r\n]*"|'[^'\r\n]*')(?:[^\s"'|;&<>]|"[^"\r\n]*"|'[^'\r\n]*')*"#
    };
}

/// Characters of a field's name.
macro_rules! name_chars {
    () => {
        "[a-z0-9_.-]"
    };
}

// After the macros above, which it uses.
mod columns;

/// The rules, applied in this order, each to the previous one's output.
const RULES: &[Rule] = &[
    // --- Private keys: whole blocks first, so that no later rule masks a part of one.
    Rule {
        // PEM blocks (RSA, EC, DSA, PKCS#8, ENCRYPTED, OPENSSH, SSH2) and PGP private key
        // blocks, to their end or the end of the text when cut; `\n` escapes (JSON) included.
        name: "private_key_block",
        pattern: r"-----BEGIN [A-Z0-9 _-]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END [A-Z0-9 _-]*PRIVATE KEY(?: BLOCK)?-----|\z)",
        kind: Kind::Shape,
    },
    Rule {
        // The base64 lines of a PuTTY key file's private part.
        name: "putty_private_key",
        pattern: r"(?m)Private-Lines:[ \t]*[0-9]+\r?\n(?:[0-9]+:[ \t])?(?P<secret>[A-Za-z0-9+/=]+\r?$(?:\n(?:[0-9]+:[ \t])?[A-Za-z0-9+/=]+\r?$)*)",
        kind: Kind::Shape,
    },
    // --- Passwords in URLs and logins.
    Rule {
        // `scheme://user:password@host`. The password runs to the last `@` before a space, so
        // that it may hold `@` (`p@ss`) and `/` (`p/ss`), unless what follows the colon is a
        // port and a path (`http://host:8080/a@b`). It may hold up to two single spaces when
        // no part of it is a port or a path (`ftp://u:pa ss@h`).
        name: "url_password",
        pattern: r"[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@]*:(?P<secret>[^\s/@]*[^\s/@0-9][^\s/@]*(?:[/@][^\s/@]*)*|[^\s/@]+(?:@[^\s/@]*)*|[^\s/@:0-9][^\s/@:]*(?:[ ][^\s/@:]+){1,2})@",
        kind: Kind::Shape,
    },
    Rule {
        // Oracle's `user/password@db` logins: in a JDBC thin URL, or on a `sqlplus` line.
        name: "oracle_login",
        pattern: r"(?m)(?:jdbc:oracle:[a-z]+:|(?-u:\b)(?:sqlplus|rman|expdp|impdp)(?:[ \t]+-[A-Za-z]+)*[ \t]+)[A-Za-z0-9_$#]+/(?P<secret>[^\s@/]+)(?:@|[ \t]|$)",
        kind: Kind::Shape,
    },
    // --- HTTP credentials.
    Rule {
        // The credential after `Bearer`, `Basic` or `token` on the same line (8 or more token
        // characters that are not a plain word: `basic understanding` stays).
        name: "scheme_credential",
        pattern: r"(?i)(?-u:\b)(?:bearer|basic|token)[ \t]+(?P<secret>[A-Za-z0-9._~+/=-]{8,})",
        kind: Kind::Credential,
    },
    Rule {
        // The credential after any scheme in an `Authorization` header, however short.
        name: "authorization_header",
        pattern: r#"(?i)(?-u:\b)(?:proxy-)?authorization(?:\\?["'])?[ \t]*[:=][ \t]*(?:\\?["'])?(?:bearer|basic|token|digest|negotiate|ntlm|apikey|api-key|sso-key|ssws|key|hmac|aws4-hmac-sha256|oauth|splunk)[ \t]+(?P<secret>[^\s"'\\,]+)"#,
        kind: Kind::Shape,
    },
    Rule {
        // A `Cookie` or `Set-Cookie` header: every cookie in it to the end of the line,
        // whatever its name.
        name: "cookie_header",
        pattern: r"(?-u:\b)(?:[Ss]et-|SET-)?(?:[Cc]ookie|COOKIE)[ \t]*:[ \t]*(?P<secret>[^\s](?:[^\r\n]*[^\s])?)",
        kind: Kind::Shape,
    },
    // --- Command lines that carry a password in a flag of their own.
    Rule {
        // `mysql -pPW` (the password glued to `-p`; `-p` alone prompts) and its siblings.
        name: "mysql_password_flag",
        pattern: concat!(
            r"(?-u:\b)(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlpump|mysqlsh|mariadb|mariadb-dump|mariadb-admin)(?-u:\b)[^\r\n]*?[ \t]-p(?P<secret>",
            shell_word!(),
            ")"
        ),
        kind: Kind::Shape,
    },
    Rule {
        // `curl -u user:PW`, `--user user:PW`, and the same in wget and HTTPie (`-a`).
        name: "http_client_user",
        pattern: r#"(?-u:\b)(?:curl|wget|xh|https?[ \t])[^\r\n]*?[ \t](?:-u|--user|-a|--auth)(?:[ \t]+|=)(?:"[^":\r\n]*:(?P<secret>[^"\r\n]+)"|'[^':\r\n]*:(?P<secret_quoted>[^'\r\n]+)'|[^\s:"']+:(?P<secret_bare>[^\s"']+))"#,
        kind: Kind::Shape,
    },
    Rule {
        // `sshpass -p PW` (or `-pPW`).
        name: "sshpass_password",
        pattern: concat!(
            r"(?-u:\b)sshpass(?-u:\b)[^\r\n]*?[ \t]-p[ \t]*(?P<secret>",
            shell_word!(),
            ")"
        ),
        kind: Kind::Shape,
    },
    Rule {
        // `redis-cli -a PW`.
        name: "redis_cli_password",
        pattern: concat!(
            r"(?-u:\b)redis-cli(?-u:\b)[^\r\n]*?[ \t]-a[ \t]+(?P<secret>",
            shell_word!(),
            ")"
        ),
        kind: Kind::Shape,
    },
    Rule {
        // `docker login -p PW`, and the same in podman, helm, oc, az, skopeo, buildah, nerdctl.
        name: "login_password_flag",
        pattern: concat!(
            r"(?-u:\b)(?:docker|podman|nerdctl|buildah|helm|skopeo|oc|az)(?-u:\b)[^\r\n]*?(?-u:\b)login(?-u:\b)[^\r\n]*?[ \t]-p[ \t]+(?P<secret>",
            shell_word!(),
            ")"
        ),
        kind: Kind::Shape,
    },
    Rule {
        // `sqlcmd -P PW` (and bcp, osql, isql), `zip -P PW`, `unzip -P PW`.
        name: "capital_p_password_flag",
        pattern: concat!(
            r"(?-u:\b)(?:sqlcmd|bcp|osql|isql|zip|unzip|zipcloak)(?-u:\b)[^\r\n]*?[ \t]-P[ \t]*(?P<secret>",
            shell_word!(),
            ")"
        ),
        kind: Kind::Shape,
    },
    Rule {
        // `7z a -pPW`, `unrar x -pPW`.
        name: "archive_password_flag",
        pattern: concat!(
            r"(?-u:\b)(?:7z|7za|7zr|rar|unrar)(?-u:\b)[^\r\n]*?[ \t]-p(?P<secret>",
            shell_word!(),
            ")"
        ),
        kind: Kind::Shape,
    },
    Rule {
        // `smbclient -U user%PW` (Samba's user and password in one argument).
        name: "samba_user_password",
        pattern: r"(?-u:\b)(?:smbclient|rpcclient|smbmap|smbget|net)(?-u:\b)[^\r\n]*?[ \t](?:-U|--user)(?:[ \t]+|=)[^\s%]+%(?P<secret>[^\s\x22']+)",
        kind: Kind::Shape,
    },
    Rule {
        // OpenSSL's `-passin pass:PW` and `-passout pass:PW`.
        name: "openssl_pass_argument",
        pattern: r"-pass(?:in|out)?[ \t]+pass:(?P<secret>[^\s]+)",
        kind: Kind::Shape,
    },
    Rule {
        // `htpasswd -b file user PW` (`-b` takes the password on the command line).
        name: "htpasswd_batch",
        pattern: r"(?-u:\b)htpasswd(?-u:\b)[ \t]+-[A-Za-z]*b[A-Za-z]*(?:[ \t]+-[A-Za-z]+)*[ \t]+[^\s|;&]+[ \t]+[^\s|;&]+[ \t]+(?P<secret>[^\s|;&]+)",
        kind: Kind::Shape,
    },
    Rule {
        // `echo 'user:PW' | chpasswd`.
        name: "chpasswd_input",
        pattern: r#"(?-u:\b)echo[ \t]+["']?[A-Za-z0-9_.-]+:(?P<secret>[^\s"'|]+)["']?[ \t]*\|[ \t]*(?:sudo[ \t]+)?chpasswd"#,
        kind: Kind::Shape,
    },
    Rule {
        // Configuration directives that take a password after a space: Redis `requirepass` and
        // `masterauth`, keepalived `auth_pass`.
        name: "config_directive_password",
        pattern: r"(?-u:\b)(?:requirepass|masterauth|auth_pass)[ \t]+(?P<secret>[^\s]+)",
        kind: Kind::Shape,
    },
    Rule {
        // PowerShell's `ConvertTo-SecureString 'PW' -AsPlainText`.
        name: "powershell_secure_string",
        pattern: r#"(?i)ConvertTo-SecureString[ \t]+(?:-String[ \t]+)?(?P<secret>"[^"\r\n]*"|'[^'\r\n]*')"#,
        kind: Kind::Shape,
    },
    // --- SQL.
    Rule {
        // `IDENTIFIED BY 'PW'`, `WITH PASSWORD 'PW'`, `PASSWORD 'PW'`, `SET PASSWORD … = 'PW'`,
        // `PASSWORD('PW')`: a quoted literal after the word.
        name: "sql_password",
        pattern: r#"(?i)(?-u:\b)(?:identified[ \t]+by(?:[ \t]+password)?[ \t]+|set[ \t]+password(?:[ \t]+for[ \t]+[^\s=]+)?[ \t]*=[ \t]*(?:password[ \t]*\([ \t]*)?|password[ \t]*\([ \t]*|(?:password|passwd|passphrase)[ \t]+)(?P<secret>'(?:[^'\r\n]|'')*'|"[^"\r\n]*")"#,
        kind: Kind::Shape,
    },
    // --- Credential files.
    Rule {
        // A `.netrc` entry: `machine h login u password PW` on one line, or `password PW` on
        // the line after a `login` line.
        name: "netrc_password",
        pattern: r"(?-u:\b)(?:(?:machine|default)(?-u:\b)[^\r\n]*?[ \t]password|login[ \t]+[^\s]+[ \t]*\r?\n(?:[0-9]+:[ \t])?[ \t]*password)[ \t]+(?P<secret>[^\s]+)",
        kind: Kind::Shape,
    },
    Rule {
        // A `.pgpass` line: `host:port:database:user:password` (port a number or `*`), alone on
        // its line or after a space (a line number, a log prefix, a table's column), a quote, a
        // comma (a CSV cell, a JSON string) or a tag.
        name: "pgpass_line",
        pattern: r#"(?m)(?:^[+-]?|[ \t|,">])[A-Za-z0-9*_\[\]-]*[A-Za-z.*][A-Za-z0-9.*_\[\]-]*:(?:[0-9]{1,5}|\*):(?:[^\s:\\]|\\.)+:[A-Za-z_*](?:[^\s:\\]|\\.)*:(?P<secret>(?:[^\s:\\]|\\.)+)(?:[ \t]|\r?$)"#,
        kind: Kind::Shape,
    },
    Rule {
        // Password hashes (crypt formats of `/etc/shadow` and `htpasswd`, Django's PBKDF2,
        // LDAP's `{SSHA}`): they can be cracked offline.
        name: "password_hash",
        pattern: r"\$2[abxy]?\$[0-9]{2}\$[./A-Za-z0-9]{53}|\$(?:1|5|6|apr1|md5)\$(?:rounds=[0-9]+\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{22,86}|\$y\$[./A-Za-z0-9]+\$[./A-Za-z0-9]+\$[./A-Za-z0-9]{43}|\$argon2(?:id|i|d)\$v=[0-9]+\$m=[0-9]+,t=[0-9]+,p=[0-9]+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+|(?-u:\b)pbkdf2_sha(?:1|256|512)\$[0-9]+\$[A-Za-z0-9./+]+\$[A-Za-z0-9./+=]+|\{(?:SSHA|SHA|SSHA256|SSHA512|SMD5|MD5|CRYPT)\}[A-Za-z0-9+/=.$]{8,}",
        kind: Kind::Shape,
    },
    // --- Fields whose name says secret, in the syntaxes that separate a name from its value.
    Rule {
        // `<password>PW</password>`, `<db:secret>…</db:secret>`, `<apiKey>…</apiKey>`.
        name: "xml_element",
        pattern: concat!(
            r"(?i)(?:<|&lt;)(?P<name>(?:[a-z_][a-z0-9_.:-]*)?",
            secret_stem!(),
            r"[a-z0-9_.:-]*)(?:[ \t\r\n][^<>&]*)?(?:>|&gt;)"
        ),
        kind: Kind::Field(Value::XmlText, Name::Word),
    },
    Rule {
        // `<add key="DbPassword" value="PW"/>`, `<property name="password" value="PW"/>`,
        // `<input name="password" value="PW">`, `<meta name="csrf-token" content="…">`.
        name: "xml_key_value",
        pattern: r#"(?i)(?:<|&lt;)[a-z][a-z0-9_.:-]*[ \t\r\n][^<>]*?(?-u:\b)(?:key|name)[ \t]*=[ \t]*(?:""|\\*["']|&quot;)(?P<name>[^"'<>&\\]{1,200})(?:""|\\*["']|&quot;)[^<>]*?(?-u:\b)(?:value|content)[ \t]*=[ \t]*"#,
        kind: Kind::Field(Value::Any, Name::Group),
    },
    Rule {
        // Hadoop-style `<name>fs.s3a.secret.key</name> <value>…</value>`.
        name: "xml_name_then_value",
        pattern: r"(?i)(?:<|&lt;)name(?:>|&gt;)[ \t]*(?P<name>[^<&\s]{1,200})[ \t]*(?:<|&lt;)/name(?:>|&gt;)\s*(?:<|&lt;)value(?:>|&gt;)",
        kind: Kind::Field(Value::XmlText, Name::Group),
    },
    Rule {
        // A name and a value in two fields: `{"name": "DB_PASSWORD", "value": "PW"}`,
        // `- name: API_TOKEN` then `value: PW`, `Key`/`Value` (tags, parameters).
        name: "name_value_pair",
        pattern: concat!(
            r#"(?i)(?:name|key)(?:""|\\?["'])?[ \t]*[:=][ \t]*(?:""|\\?["'])?(?P<name>[a-z0-9_.:/-]*"#,
            secret_stem!(),
            r#"[a-z0-9_.:/-]*)(?:""|\\?["'])?(?:[ \t]*,[ \t]*|[ \t]*\r?\n(?:[^\r\n]{0,80}?[ \t:]|[+-])?[ \t]*|[ \t]*(?:\\[rn])+[ \t]*|[ \t]+)(?:""|\\?["'])?[a-z_]*value(?:""|\\?["'])?[ \t]*[:=][ \t]*"#
        ),
        kind: Kind::Field(Value::Any, Name::Group),
    },
    Rule {
        // A call given a name and a value: `define('DB_PASSWORD', 'PW')`,
        // `os.Setenv("API_TOKEN", "…")`, `setProperty("javax.net.ssl.keyStorePassword", "…")`.
        name: "call_pair",
        pattern: concat!(
            r#"(?i)\([ \t]*\\?["'](?P<name>[a-z0-9_.:-]*"#,
            secret_stem!(),
            r#"[a-z0-9_.:-]*)\\?["'][ \t]*,[ \t]*"#
        ),
        kind: Kind::Field(Value::Any, Name::Group),
    },
    Rule {
        // `name=value` in every common syntax: `DB_PASS=…`, `"pass": "…"`, `password: …`,
        // `api_key := …`, `'secret' => …`, `config["token"] = …`, `Password=…;` in a connection
        // string, `password: str = "…"`, `**Password:** …`, and `API key: …` (one word before).
        name: "assignment",
        pattern: concat!(
            r"(?i)(?P<name>(?:[a-z]+[ ])?",
            name_chars!(),
            "*",
            secret_stem!(),
            name_chars!(),
            r#"*)(?:\\*""|\\*["'`]|\*\*|__)?\]?[ \t]*(?::[ \t]*&?(?:'static[ \t]+)?[a-z_][a-z0-9_]*(?:<[^<>\r\n]*>|\[[^\[\]\r\n]*\])?[ \t]+=[ \t]+|:=|=>|=&gt;|={1,3}|:)(?:\*\*|__)?[ \t]*@?"#
        ),
        kind: Kind::Field(Value::Any, Name::Leading),
    },
    Rule {
        // A name and its value as neighbouring cells of a row: `DB_PASS,PW` in CSV, `;` or a
        // tab between them, `| API_TOKEN | PW |` in a table. The name starts a line (after a
        // diff's `+` or `-`), or follows a space or another cell's separator; a comma or a
        // semicolon glued to both cells keeps prose lists (`user, password, email`) apart.
        name: "delimited_cells",
        pattern: concat!(
            r#"(?im)(?:^[+-]?|[\s,;|>])"?(?P<name>[a-z0-9_.]*"#,
            secret_stem!(),
            r#"[a-z0-9_.]*)"?(?:,|;|\t|\\t|[ \t]*\|[ \t]*)"#
        ),
        kind: Kind::Field(Value::Any, Name::Cell),
    },
    Rule {
        // A flag and its argument: `--password PW`, `--api-key KEY`, `-Password PW` (a flag
        // starts a word: after a space, a quote, `(` or `=`).
        name: "flag_value",
        pattern: concat!(
            r#"(?i)--?(?P<name>(?:[a-z]"#,
            name_chars!(),
            "*)?",
            secret_stem!(),
            name_chars!(),
            r"*)[ \t]+"
        ),
        kind: Kind::Field(Value::Flag, Name::Word),
    },
    // --- Tokens of known providers, by their shape.
    Rule {
        // OpenAI (`sk-proj-…`, `sk-svcacct-…`), Anthropic (`sk-ant-…`), DeepSeek and others.
        name: "sk_api_key",
        pattern: r"(?-u:\b)sk-[A-Za-z0-9_-]{16,}",
        kind: Kind::Shape,
    },
    Rule {
        name: "stripe_key",
        pattern: r"(?-u:\b)[sprk]k_(?:live|test)_[A-Za-z0-9]{10,}",
        kind: Kind::Shape,
    },
    Rule {
        name: "stripe_webhook_secret",
        pattern: r"(?-u:\b)whsec_[A-Za-z0-9+/=]{16,}",
        kind: Kind::Shape,
    },
    Rule {
        // Personal, OAuth, user-to-server, server-to-server and refresh tokens.
        name: "github_token",
        pattern: r"(?-u:\b)gh[pousr]_[A-Za-z0-9]{20,}",
        kind: Kind::Shape,
    },
    Rule {
        name: "github_fine_grained_token",
        pattern: r"(?-u:\b)github_pat_[A-Za-z0-9_]{20,}",
        kind: Kind::Shape,
    },
    Rule {
        // Personal, deploy, runner, pipeline trigger, CI job, feed, SCIM, OAuth app, agent,
        // incoming mail and feature flag tokens, and runner registration tokens.
        name: "gitlab_token",
        pattern: r"(?-u:\b)(?:gl(?:pat|dt|rt|ptt|cbt|ft|soat|oas|agent|imt|ffct)-[A-Za-z0-9_.-]{20,}|GR1348941[A-Za-z0-9_-]{20,})",
        kind: Kind::Shape,
    },
    Rule {
        name: "slack_token",
        pattern: r"(?-u:\b)(?:xox[abposre]-[A-Za-z0-9.-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,})",
        kind: Kind::Shape,
    },
    Rule {
        // Webhook URLs whose path is the credential.
        name: "webhook_url",
        pattern: r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]+|discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_-]+|webhook\.office\.com/webhookb2/[A-Za-z0-9@/-]+|outlook\.office\.com/webhook/[A-Za-z0-9@/-]+",
        kind: Kind::Shape,
    },
    Rule {
        name: "discord_bot_token",
        pattern: r"(?-u:\b)[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?-u:\b)",
        kind: Kind::Shape,
    },
    Rule {
        name: "telegram_bot_token",
        pattern: r"(?-u:\b)[0-9]{8,10}:AA[A-Za-z0-9_-]{30,40}",
        kind: Kind::Shape,
    },
    Rule {
        // Access key ids (long-term `AKIA`, temporary `ASIA`, and the other id prefixes).
        name: "aws_access_key_id",
        pattern: r"(?-u:\b)(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[0-9A-Z]{16}",
        kind: Kind::Shape,
    },
    Rule {
        // API keys, OAuth client secrets and OAuth access and refresh tokens.
        name: "google_credential",
        pattern: r"(?-u:\b)(?P<secret>AIza[0-9A-Za-z_-]{35}|GOCSPX-[A-Za-z0-9_-]{24,}|ya29\.[A-Za-z0-9_-]{20,})|(?-u:\b)(?P<secret_refresh>1//0[A-Za-z0-9_-]{40,})",
        kind: Kind::Shape,
    },
    Rule {
        // Entra ID (Azure AD) client secrets.
        name: "azure_client_secret",
        pattern: r"(?-u:\b)[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}",
        kind: Kind::Shape,
    },
    Rule {
        // Header, payload and signature (and JWE parts), each base64url.
        name: "jwt",
        pattern: r"(?-u:\b)eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}(?:\.[A-Za-z0-9_-]+){0,2}",
        kind: Kind::Shape,
    },
    Rule {
        name: "sendgrid_key",
        pattern: r"(?-u:\b)SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}",
        kind: Kind::Shape,
    },
    Rule {
        // Twilio API key sids (`SK` and 32 hexadecimal digits) name a key and its secret.
        name: "twilio_api_key",
        pattern: r"(?-u:\b)SK[0-9a-fA-F]{32}(?-u:\b)",
        kind: Kind::Shape,
    },
    Rule {
        // Mailgun's `key-…` API keys.
        name: "mailgun_key",
        pattern: r"(?-u:\b)key-[0-9a-f]{32}(?-u:\b)",
        kind: Kind::Shape,
    },
    Rule {
        name: "mailchimp_key",
        pattern: r"(?-u:\b)[0-9a-f]{32}-us[0-9]{1,2}(?-u:\b)",
        kind: Kind::Shape,
    },
    Rule {
        name: "npm_token",
        pattern: r"(?-u:\b)npm_[A-Za-z0-9]{30,}",
        kind: Kind::Shape,
    },
    Rule {
        name: "pypi_token",
        pattern: r"(?-u:\b)pypi-[A-Za-z0-9_-]{30,}",
        kind: Kind::Shape,
    },
    Rule {
        name: "huggingface_token",
        pattern: r"(?-u:\b)(?:hf_|api_org_)[A-Za-z0-9]{30,}",
        kind: Kind::Shape,
    },
    Rule {
        name: "shopify_token",
        pattern: r"(?-u:\b)shp(?:at|ss|ca|pa)_[A-Fa-f0-9]{32}",
        kind: Kind::Shape,
    },
    Rule {
        // Personal access, OAuth and refresh tokens.
        name: "digitalocean_token",
        pattern: r"(?-u:\b)do[opr]_v1_[a-f0-9]{64}",
        kind: Kind::Shape,
    },
    Rule {
        // Service, batch and recovery tokens.
        name: "vault_token",
        pattern: r"(?-u:\b)hv[sbr]\.[A-Za-z0-9_-]{20,}",
        kind: Kind::Shape,
    },
    Rule {
        name: "age_secret_key",
        pattern: r"AGE-SECRET-KEY-1[0-9A-Z]{58}",
        kind: Kind::Shape,
    },
    Rule {
        // Developer-platform tokens with a fixed prefix: Databricks, Doppler, Linear, Notion,
        // Postman, Pulumi, Grafana, Sentry, Atlassian, Heroku, Fly.io, PlanetScale, RubyGems,
        // Supabase, Tailscale, 1Password.
        name: "platform_token",
        pattern: concat!(
            r"(?-u:\b)(?:dapi[a-f0-9]{32}(?:-[0-9])?",
            r"|dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}",
            r"|lin_api_[A-Za-z0-9]{40}",
            r"|ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43}",
            r"|PMAK-[a-f0-9]{24}-[a-f0-9]{34}",
            r"|pul-[a-f0-9]{40}",
            r"|glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}",
            r"|sntry[su]_[A-Za-z0-9+/=_]{40,}",
            r"|ATATT3[A-Za-z0-9_=-]{50,}",
            r"|HRKU-AA[A-Za-z0-9_-]{58}",
            r"|fo1_[A-Za-z0-9_-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3}",
            r"|pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_.=-]{32,}",
            r"|rubygems_[a-f0-9]{48}",
            r"|sbp_[a-f0-9]{40}",
            r"|tskey-[a-z]+-[A-Za-z0-9]{10,}-[A-Za-z0-9]{20,}",
            r"|ops_eyJ[A-Za-z0-9+/=]{100,}",
            r"|A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5})"
        ),
        kind: Kind::Shape,
    },
    Rule {
        name: "terraform_cloud_token",
        pattern: r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}",
        kind: Kind::Shape,
    },
    Rule {
        // Commerce and messaging tokens with a fixed prefix: Square, Brevo, New Relic, Alibaba
        // access key ids, Artifactory, Contentful, Mapbox secret tokens, EasyPost, Flutterwave,
        // Duffel, Frame.io, Dynatrace, Facebook page tokens.
        name: "service_token",
        pattern: concat!(
            r"(?-u:\b)(?:sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}|EAAA[A-Za-z0-9_-]{60}",
            r"|x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}",
            r"|NR(?:AK|II|JS)-[A-Za-z0-9]{19,32}",
            r"|LTAI[A-Za-z0-9]{20}",
            r"|AKCp[A-Za-z0-9]{69}",
            r"|CFPAT-[A-Za-z0-9_-]{43}",
            r"|sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}",
            r"|EZ[AT]K[A-Za-z0-9]{54}",
            r"|FLWSECK(?:_TEST)?-[a-h0-9]{32}-X",
            r"|duffel_(?:test|live)_[A-Za-z0-9_=-]{43}",
            r"|fio-u-[A-Za-z0-9_=-]{64}",
            r"|dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}",
            r"|EAA[MC][A-Za-z0-9]{80,})"
        ),
        kind: Kind::Shape,
    },
    Rule {
        // Other AI providers' keys: Groq, Perplexity, Replicate, xAI.
        name: "ai_provider_key",
        pattern: r"(?-u:\b)(?:gsk_[A-Za-z0-9]{48,}|pplx-[A-Za-z0-9]{40,}|r8_[A-Za-z0-9]{37,}|xai-[A-Za-z0-9]{70,})",
        kind: Kind::Shape,
    },
    // --- Last: any long token that looks like a key.
    Rule {
        // Long runs of token characters, masked only when they mix letters and digits.
        name: "long_token",
        pattern: r"[A-Za-z0-9_+/=-]{32,}",
        kind: Kind::Key,
    },
];

/// The names of the masking rules, in the order they apply (the first, `columns`, masks the
/// rows under a header that names a column as secret).
pub fn rule_names() -> impl Iterator<Item = &'static str> {
    [COLUMNS_RULE]
        .into_iter()
        .chain(RULES.iter().map(|rule| rule.name))
}

/// The name of the pass of [`columns`].
const COLUMNS_RULE: &str = "columns";

// ---------------------------------------------------------------------------------------------
// Judging a field's name
// ---------------------------------------------------------------------------------------------

/// Words that name a secret, alone (`token`) or ending a longer word (`dbpassword`,
/// `authtoken`, `JSESSIONID`).
#[rustfmt::skip]
const SECRET_WORDS: &[&str] = &[
    "password", "passwd", "passwort", "passphrase", "passcode", "secret", "token", "credential",
    "credentials", "creds", "hmac", "cookie", "pwd", "sessionid", "sessid", "storepass", "keypass",
    "authorization",
];

/// Longer words ending in a secret word that are no secret: `OLDPWD` is a folder, `htpasswd` a
/// tool, sudo's `NOPASSWD` a flag.
const NOT_SECRET_WORDS: &[&str] = &["oldpwd", "htpasswd", "nopasswd", "nopassword"];

/// Words that name a secret only as a whole word: `DB_PASS` and `"pass"`, but not `compass`;
/// `auth`, but not `OAuth`.
const SECRET_WHOLE_WORDS: &[&str] = &[
    "pass",
    "pw",
    "auth",
    "salt",
    "sig",
    "signature",
    "dsn",
    "psk",
];

/// Words that make a following `key` (or a word ending in `key`, `apikey`) a secret one.
#[rustfmt::skip]
const KEY_QUALIFIERS: &[&str] = &[
    "api", "access", "secret", "private", "priv", "signing", "sign", "encryption", "encrypt",
    "enc", "crypt", "crypto", "cipher", "aes", "master", "auth", "client", "account", "service",
    "license", "licence", "app", "application", "consumer", "hmac", "session", "storage",
    "subscription", "deploy", "jwt", "webhook", "shared", "root", "admin", "write", "ingest",
    "sas",
];

/// Words after a secret word that make the field describe the secret instead of holding it
/// (`token_type`, `password_length`, `secret_name`) or name a file (`password.txt`).
#[rustfmt::skip]
const DESCRIPTOR_WORDS: &[&str] = &[
    "count", "length", "len", "size", "type", "kind", "url", "uri", "endpoint", "host", "hostname",
    "port", "name", "names", "file", "files", "filename", "path", "dir", "directory", "hint",
    "policy", "ttl", "expiry", "expires", "expiration", "expire", "lifetime", "timeout", "limit",
    "min", "max", "format", "field", "header", "prefix", "mode", "enabled", "enable", "disabled",
    "required", "algorithm", "alg", "method", "version", "ref", "rounds", "iterations", "env",
    "var", "location", "usage", "used", "param", "label", "description", "placeholder", "pattern",
    "provider", "store", "source", "helper", "command", "cmd", "script", "rotation", "created",
    "updated", "reset", "strength", "status", "stdin", "txt", "json", "yaml", "yml", "toml", "ini",
    "conf", "cfg", "xml", "md", "rs", "py", "js", "ts", "go", "rb", "php", "sh", "log", "csv",
];

/// Words right before a secret word that make the field count or flag it (`max_token`,
/// `is_secret`, `no-password`).
const COUNTING_WORDS: &[&str] = &[
    "max", "min", "num", "number", "total", "count", "is", "has", "use", "show", "hide", "forgot",
    "no",
];

/// The words of a field's name, lower case: split at `_`, `-`, `.`, `:`, spaces and camel-case
/// humps (`dbPassword`, `APIKey`), trailing digits dropped (`password2`).
fn name_words(name: &str) -> Vec<String> {
    let bytes = name.as_bytes();
    let mut words = Vec::new();
    let push = |words: &mut Vec<String>, word: &str| {
        let kept = word.trim_end_matches(|c: char| c.is_ascii_digit());
        let kept = if kept.is_empty() { word } else { kept };
        if !kept.is_empty() {
            words.push(kept.to_ascii_lowercase());
        }
    };
    let mut start = None;
    for (index, &byte) in bytes.iter().enumerate() {
        if !byte.is_ascii_alphanumeric() {
            if let Some(from) = start.take() {
                push(&mut words, &name[from..index]);
            }
            continue;
        }
        let Some(from) = start else {
            start = Some(index);
            continue;
        };
        if byte.is_ascii_uppercase() {
            let previous = bytes[index - 1];
            let next_is_lower = bytes.get(index + 1).is_some_and(u8::is_ascii_lowercase);
            if previous.is_ascii_lowercase()
                || previous.is_ascii_digit()
                || (previous.is_ascii_uppercase() && next_is_lower && index - from > 1)
            {
                push(&mut words, &name[from..index]);
                start = Some(index);
            }
        }
    }
    if let Some(from) = start {
        push(&mut words, &name[from..]);
    }
    words
}

/// Whether word `index` of a name names a secret.
fn is_secret_word(words: &[String], index: usize) -> bool {
    let word = words[index].as_str();
    if NOT_SECRET_WORDS.contains(&word) {
        return false;
    }
    let previous = index.checked_sub(1).map(|i| words[i].as_str());
    SECRET_WORDS.iter().any(|secret| word.ends_with(secret))
        || SECRET_WHOLE_WORDS.contains(&word)
        || (word == "key" && previous.is_some_and(|p| KEY_QUALIFIERS.contains(&p)))
        || word
            .strip_suffix("key")
            .is_some_and(|head| KEY_QUALIFIERS.contains(&head))
        || (word == "id" && previous == Some("session"))
}

/// Whether a field named `name`, followed by `separator`, holds a secret. A name may start with
/// a word of prose (`API key`, `your password`, `WARN DB_PASS`): the identifier after it is
/// judged alone, and the two words together only as a qualified key.
fn is_secret_field(name: &str, separator: &str) -> bool {
    let Some((prose, identifier)) = name.rsplit_once(' ') else {
        return is_secret_identifier(name, separator, false);
    };
    if name_words(prose)
        .last()
        .is_some_and(|word| COUNTING_WORDS.contains(&word.as_str()))
    {
        return false;
    }
    is_secret_identifier(identifier, separator, true)
        || (name_words(name).last().is_some_and(|word| word == "key")
            && is_secret_identifier(name, separator, true))
}

/// Whether an identifier (`DB_PASS`, `apiKey`, `"pass"`) names a secret; `after_prose` when a
/// word of prose comes before it on its line.
fn is_secret_identifier(name: &str, separator: &str, after_prose: bool) -> bool {
    let words = name_words(name);
    let Some(last) = (0..words.len()).rev().find(|&i| is_secret_word(&words, i)) else {
        return is_env_key(name, separator, &words);
    };
    if words[last + 1..]
        .iter()
        .any(|word| DESCRIPTOR_WORDS.contains(&word.as_str()))
    {
        return false;
    }
    if last > 0 && COUNTING_WORDS.contains(&words[last - 1].as_str()) {
        return false;
    }
    // A weak word alone before a colon is a label, not a field, when it is capitalised (a test
    // runner's `PASS:`, a letter's `Signature:`) or follows a word of prose (`requests pass:
    // its Host`).
    let lone_weak = words.len() == 1 && SECRET_WHOLE_WORDS.contains(&words[0].as_str());
    let colon = separator.trim() == ":";
    let capitalised = name.starts_with(|c: char| c.is_ascii_uppercase());
    !(lone_weak && colon && (capitalised || after_prose))
}

/// `STRIPE_KEY=…`: an environment variable in capitals, of two words or more, one of them
/// `KEY`, set with `=` or `:` (`"STRIPE_KEY": …` in a JSON map), or given as a cell beside its
/// value (`STRIPE_KEY,…`).
fn is_env_key(name: &str, separator: &str, words: &[String]) -> bool {
    (matches!(
        separator.trim().trim_start_matches(['"', '\'', '\\']),
        "=" | ":"
    ) || is_cell_separator(separator))
        && words.len() >= 2
        && words.iter().any(|word| word == "key")
        && name
            .trim_start_matches(['-', '+'])
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// Whether `separator` parts two cells of a row: a comma, a semicolon, a tab (or `\t` in a
/// JSON string) or a `|`, with spaces around the `|` only.
fn is_cell_separator(separator: &str) -> bool {
    matches!(separator, "," | ";" | "\t" | "\\t") || separator.trim_matches([' ', '\t']) == "|"
}

// ---------------------------------------------------------------------------------------------
// Judging a field's value
// ---------------------------------------------------------------------------------------------

/// Values that say nothing secret: literals, types and words of prose.
#[rustfmt::skip]
const PLAIN_VALUES: &[&str] = &[
    "null", "nil", "none", "undefined", "true", "false", "yes", "no", "on", "off", "required",
    "optional", "string", "str", "bytes", "int", "bool", "boolean", "object", "hidden", "impl",
    "dyn", "mut", "const", "let", "var", "fn", "func", "function", "new", "is", "are", "was", "to",
    "the", "a", "an", "and", "or", "of", "for", "with", "in", "at", "by", "from", "if", "not",
    "must", "should", "will", "can", "be",
];

/// Prefixes of values that read a secret from elsewhere rather than hold it.
#[rustfmt::skip]
const REFERENCE_PREFIXES: &[&str] = &[
    "${", "$(", "{{", "%(", "#{", "process.env.", "os.environ", "os.getenv", "env(", "env.",
    "ENV[", "System.getenv", "secrets.", "vault:",
];

/// Whether a value is a version requirement (`0.12`, `^9.0.0`, `>=1.2, <2`, `~1.4.*`).
fn is_version(value: &str) -> bool {
    let bare = value.trim_start_matches(['^', '~', '=', '>', '<', 'v', ' ']);
    let (numbers, _pre) = bare.split_once('-').unwrap_or((bare, ""));
    let parts: Vec<&str> = numbers.split('.').collect();
    parts.len() >= 2
        && parts.iter().all(|part| {
            *part == "*" || (!part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
        })
}

/// A value without its quotes (and Python's `r`, `b`, `f` prefixes, or XML's CDATA), and
/// whether it had any.
fn unquote(raw: &str) -> (bool, &str) {
    if let Some(data) = raw.strip_prefix("<![CDATA[") {
        return (true, data.strip_suffix("]]>").unwrap_or(data));
    }
    let body = raw.trim_start_matches(['r', 'R', 'b', 'B', 'u', 'U', 'f', 'F']);
    let body = if body.starts_with(['"', '\'']) {
        body
    } else {
        raw
    };
    for quote in ["\\\"", "\"", "'", "`"] {
        if let Some(rest) = body.strip_prefix(quote) {
            return (true, rest.strip_suffix(quote).unwrap_or(rest));
        }
    }
    (false, raw)
}

/// Whether a field's value (`raw`, as the text has it; `next`, the character after it) holds a
/// secret rather than a reference (`${X}`, `$X`, `os.getenv(..)`), a placeholder (`<token>`,
/// `****`, `YOUR_API_KEY`), a literal (`null`, `true`), a word of prose, or code (a call, a
/// generic type, the field's own name, `form.password.data`).
fn is_secret_value(raw: &str, next: Option<char>, name: &str) -> bool {
    let (quoted, inner) = unquote(raw);
    if inner.trim().is_empty() || inner == SECRET_MASK {
        return false;
    }
    // `PWD=/home/ada` is the shell's folder; `PWD=…;` in a connection string is a password.
    if inner.starts_with(['/', '~', '.']) && name_words(name) == ["pwd"] {
        return false;
    }
    if PLAIN_VALUES
        .iter()
        .any(|plain| inner.eq_ignore_ascii_case(plain))
    {
        return false;
    }
    if inner
        .chars()
        .all(|c| matches!(c, '*' | '•' | '.' | '#' | '?' | '…'))
        || (inner.len() >= 3 && inner.chars().all(|c| c == 'x' || c == 'X'))
        || (inner.starts_with('<') && inner.ends_with('>'))
        || REFERENCE_PREFIXES
            .iter()
            .any(|prefix| inner.starts_with(prefix))
    {
        return false;
    }
    // `$API_TOKEN`, `%APPDATA%`, `YOUR_API_KEY`: references and placeholders in capitals.
    let capitals = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
    };
    if inner.strip_prefix('$').is_some_and(capitals)
        || inner
            .strip_prefix('%')
            .and_then(|s| s.strip_suffix('%'))
            .is_some_and(capitals)
        || (capitals(inner) && is_secret_field(inner, ""))
    {
        return false;
    }
    // `hmac = "0.12"`, `"jsonwebtoken": "^9.0.0"`: a dependency's version.
    if is_version(inner) {
        return false;
    }
    if quoted {
        return true;
    }
    // Code: `hash(password)`, `Option<String>`, `password: password`, `form.password.data`.
    let identifier = |s: &str| {
        s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':'))
    };
    let call = inner
        .find('(')
        .is_some_and(|open| identifier(inner[..open].trim_end_matches('!')));
    // The field's own name (`token`), or its last word (`api_key` -> `key`), read back.
    let field = name
        .rsplit(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .next()
        .unwrap_or(name);
    // Letters and digits only, in lower case: `api_key`, `apiKey` and `API-KEY` read alike.
    let letters = |s: &'_ str| {
        s.bytes()
            .filter(u8::is_ascii_alphanumeric)
            .map(|b| b.to_ascii_lowercase())
            .collect::<Vec<u8>>()
    };
    let field_letters = letters(field);
    let names_the_field = |part: &str| !field_letters.is_empty() && letters(part) == field_letters;
    let own_name = names_the_field(inner);
    // A path that ends in, or passes through, the field's own name: `event.token`,
    // `settings.SECRET_KEY`, `form.password.data` (but not `prod.secret.value`).
    let path_to_field = inner.contains(['.', ':'])
        && inner
            .split(['.', ':'])
            .all(|part| part.is_empty() || identifier(part))
        && inner.split(['.', ':']).any(names_the_field);
    !(call || own_name || path_to_field || matches!(next, Some('(' | '<')))
}

// ---------------------------------------------------------------------------------------------
// Applying the rules
// ---------------------------------------------------------------------------------------------

/// A field's value, at the start of the text after its separator.
fn value_pattern(value: Value) -> &'static Regex {
    static ANY: LazyLock<Regex> = LazyLock::new(|| {
        regex(concat!(
            r#"\A(?:\\*""[^"\r\n]+?\\*""|(?:[rRbBuUfF]{1,2})?"(?:[^"\\\r\n]|\\.|"")*(?:"|\z)"#,
            r"|(?:[rRbBuUfF]{1,2})?'[^'\r\n]*(?:'|\z)",
            r"|`[^`\r\n]*(?:`|\z)",
            r#"|\\+"(?:[^"\\\r\n]|\\[^"\r\n])*?(?:\\+"|\z)"#,
            r#"|[^\s"'`,;&<>{}\[\]():\\](?:[^\s"'`,;&<\\]|\\[^\snrt"])*)"#
        ))
    });
    static FLAG: LazyLock<Regex> = LazyLock::new(|| {
        regex(r#"\A(?:"(?:[^"\\\r\n]|\\.)*(?:"|\z)|'[^'\r\n]*(?:'|\z)|[^\s"'`\-{\[(<>|][^\s"'`]*)"#)
    });
    static XML_TEXT: LazyLock<Regex> = LazyLock::new(|| {
        regex(
            r"\A[ \t\r\n]*(?:(?P<secret>(?s:<!\[CDATA\[.*?\]\]>)|[^<\s](?:[^<]*[^<\s])?)[ \t\r\n]*</|(?P<secret_escaped>(?:[^<&\s]|&amp;)(?:(?:[^<&]|&amp;|&quot;|&#39;)*(?:[^<&\s]|&amp;|&quot;|&#39;))?)[ \t\r\n]*&lt;/)",
        )
    });
    match value {
        Value::Any => &ANY,
        Value::Flag => &FLAG,
        Value::XmlText => &XML_TEXT,
    }
}

fn regex(pattern: &str) -> Regex {
    // The patterns are constants of this file; a test compiles each one.
    Regex::new(pattern).unwrap_or_else(|error| panic!("invalid redaction pattern: {error}"))
}

/// One or more rules ready to apply.
struct Compiled {
    /// How the part to mask is found (the kind of every rule compiled here).
    kind: Kind,
    regex: Regex,
    /// Indices of the groups named `secret…`.
    secret_groups: Vec<usize>,
}

impl Compiled {
    fn new(kind: Kind, pattern: &str) -> Self {
        let regex = regex(pattern);
        let secret_groups = regex
            .capture_names()
            .enumerate()
            .filter(|(_, name)| name.is_some_and(|name| name.starts_with("secret")))
            .map(|(index, _)| index)
            .collect();
        Self {
            kind,
            regex,
            secret_groups,
        }
    }
}

/// The rules as they apply: each run of consecutive [`Kind::Shape`] rules as one pattern (their
/// alternation, each rule's `secret…` groups renamed apart), so that one search finds them
/// all, and every other rule alone. A text without secrets then costs a dozen searches rather
/// than one per rule, which counts where texts are short and many (`fetch_logs` masks each
/// line of a log).
static STEPS: LazyLock<Vec<Compiled>> = LazyLock::new(|| {
    let mut steps = Vec::new();
    let mut shapes: Vec<String> = Vec::new();
    let flush = |shapes: &mut Vec<String>, steps: &mut Vec<Compiled>| {
        if !shapes.is_empty() {
            steps.push(Compiled::new(Kind::Shape, &shapes.join("|")));
            shapes.clear();
        }
    };
    for (index, rule) in RULES.iter().enumerate() {
        if matches!(rule.kind, Kind::Shape) {
            // A rule that masks its whole match masks a group of it here.
            let alternative = if rule.pattern.contains("(?P<secret") {
                format!(
                    "(?:{})",
                    rule.pattern
                        .replace("(?P<secret", &format!("(?P<secret{index}"))
                )
            } else {
                format!("(?P<secret{index}>{})", rule.pattern)
            };
            shapes.push(alternative);
        } else {
            flush(&mut shapes, &mut steps);
            steps.push(Compiled::new(rule.kind, rule.pattern));
        }
    }
    flush(&mut shapes, &mut steps);
    steps
});

/// A text being masked: copied only from its first mask on.
struct Masking<'t> {
    text: &'t str,
    out: String,
    copied: usize,
}

impl<'t> Masking<'t> {
    fn new(text: &'t str) -> Self {
        Self {
            text,
            out: String::new(),
            copied: 0,
        }
    }

    /// Masks `range`, unless it is already the mask or overlaps a part masked before.
    fn mask(&mut self, range: Range<usize>) {
        if range.is_empty() || range.start < self.copied || &self.text[range.clone()] == SECRET_MASK
        {
            return;
        }
        if self.out.is_empty() {
            self.out.reserve(self.text.len());
        }
        self.out.push_str(&self.text[self.copied..range.start]);
        self.out.push_str(SECRET_MASK);
        self.copied = range.end;
    }

    /// The masked text, or `None` when nothing was masked.
    fn finish(mut self) -> Option<String> {
        if self.copied == 0 {
            return None;
        }
        self.out.push_str(&self.text[self.copied..]);
        Some(self.out)
    }
}

impl Compiled {
    /// `text` with this rule's secrets masked, or `None` when it has none.
    fn apply(&self, text: &str) -> Option<String> {
        let mut masking = Masking::new(text);
        match self.kind {
            Kind::Field(value, name) => self.mask_fields(text, value, name, &mut masking),
            Kind::Shape | Kind::Key | Kind::Credential if self.secret_groups.is_empty() => {
                for found in self.regex.find_iter(text) {
                    if self.accepts(found.as_str()) {
                        masking.mask(to_word_end(text, found.range()));
                    }
                }
            }
            Kind::Shape | Kind::Key | Kind::Credential => {
                for caps in self.regex.captures_iter(text) {
                    self.mask_groups(text, &caps, &mut masking);
                }
            }
        }
        masking.finish()
    }

    fn accepts(&self, secret: &str) -> bool {
        match self.kind {
            Kind::Key => looks_like_key(secret),
            Kind::Credential => looks_like_credential(secret),
            Kind::Shape | Kind::Field(..) => true,
        }
    }

    fn mask_groups(&self, text: &str, caps: &Captures<'_>, masking: &mut Masking<'_>) {
        for &index in &self.secret_groups {
            if let Some(secret) = caps.get(index)
                && self.accepts(secret.as_str())
            {
                masking.mask(to_word_end(text, secret.range()));
            }
        }
    }

    /// Finds each field name, judges it, and masks the value after a secret one. A field that
    /// is no secret is passed at its name, so that a field in its separator or its value is
    /// judged too (`- name: key` then a line holding `"name": "API_TOKEN", "value": …`); a
    /// secret one is passed at the end of its value. Each search starts past the last name, and
    /// a separator spans a bounded number of characters, so the cost stays linear in the text.
    fn mask_fields(&self, text: &str, value: Value, name: Name, masking: &mut Masking<'_>) {
        let grammar = value_pattern(value);
        let mut sections = Sections::default();
        let mut at = 0;
        while at < text.len() {
            let Some(whole) = self.regex.find_at(text, at) else {
                break;
            };
            at = whole.end();
            if matches!(value, Value::Flag)
                && !text[..whole.start()]
                    .chars()
                    .next_back()
                    .is_none_or(|c| c.is_whitespace() || matches!(c, '"' | '\'' | '(' | '='))
            {
                // `x-api-key value`: a word's hyphen, not a flag.
                continue;
            }
            let found_name = match name {
                Name::Leading => Some(leading_name(text, whole.start())),
                Name::Word => Some(word_name(text, whole.range())),
                Name::Group => self.name_in(text, whole.start()),
                Name::Cell => Some(cell_name(text, whole.start())),
            };
            let Some((name_start, name_end)) = found_name else {
                continue;
            };
            if name_end > whole.start() {
                at = name_end;
            }
            let before = &text[..name_start];
            let mut field = &text[name_start..name_end];
            if before.ends_with('\\') && field.starts_with(['n', 'r', 't']) {
                // `\npassword=…`: a line break escaped in a JSON string or a log line.
                field = &field[1..];
            } else if before.ends_with(['/', '\\']) {
                // `/etc/passwd:`, `notes/token.txt:12:`: a path, not a field.
                continue;
            }
            let separator = &text[name_end..whole.end()];
            if !is_secret_field(field, separator) {
                continue;
            }
            // Only the text a value can span goes to the value's pattern, so that each search
            // costs what it reads.
            let rest = &text[whole.end()..value_end(text, whole.end(), value, &mut sections)];
            let (secret, read) = match value {
                // What follows the text of an XML element is always its closing tag.
                Value::XmlText => {
                    let Some(found) = grammar.captures(rest) else {
                        continue;
                    };
                    let secret = found
                        .name("secret")
                        .or_else(|| found.name("secret_escaped"));
                    let (Some(all), Some(secret)) = (found.get(0), secret) else {
                        continue;
                    };
                    (secret.range(), all.end())
                }
                Value::Any | Value::Flag => {
                    let Some(found) = grammar.find(rest) else {
                        continue;
                    };
                    (found.range(), found.end())
                }
            };
            at = whole.end() + read;
            let next = match value {
                Value::XmlText => None,
                // A closing tag ends a value in markup (`<p>PASS,PW</p>`); a lone `<` opens a
                // generic type in code (`Option<String>`).
                Value::Any | Value::Flag if rest[secret.end..].starts_with("</") => None,
                Value::Any | Value::Flag => rest[secret.end..].chars().next(),
            };
            if is_secret_value(&rest[secret.clone()], next, field) {
                masking.mask(whole.end() + secret.start..whole.end() + secret.end);
            }
        }
    }
}

impl Compiled {
    /// Where the group `name` of the match that starts at `start` is.
    fn name_in(&self, text: &str, start: usize) -> Option<(usize, usize)> {
        let name = self.regex.captures_at(text, start)?.name("name")?;
        Some((name.start(), name.end()))
    }
}

/// Where the name in a flag or a tag at `range` is: the name characters after its `-` or `<`
/// (or `&lt;`, a tag shown escaped in a page's source).
fn word_name(text: &str, range: Range<usize>) -> (usize, usize) {
    let matched = &text.as_bytes()[range.clone()];
    let lead = if matched.starts_with(b"&lt;") {
        4
    } else {
        matched
            .iter()
            .take_while(|b| matches!(b, b'-' | b'<'))
            .count()
    };
    let length = matched[lead..]
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'))
        .count();
    (range.start + lead, range.start + lead + length)
}

/// Where the name of a cell whose match starts at `start` is: past what starts the cell, the
/// name characters.
fn cell_name(text: &str, start: usize) -> (usize, usize) {
    let bytes = &text.as_bytes()[start..];
    let lead = bytes
        .iter()
        .take_while(|b| b.is_ascii_whitespace() || b"+-,;|>\"".contains(b))
        .count();
    let length = bytes[lead..]
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.'))
        .count();
    (start + lead, start + lead + length)
}

/// Where the name that starts at `start` ends: a word of letters and a space when name
/// characters follow them (`API key`, `WARN DB_PASS`), then the name characters.
fn leading_name(text: &str, start: usize) -> (usize, usize) {
    let is_name = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-');
    let bytes = &text.as_bytes()[start..];
    let letters = bytes.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    let prose = if letters > 0
        && bytes.get(letters) == Some(&b' ')
        && bytes.get(letters + 1).is_some_and(is_name)
    {
        letters + 1
    } else {
        0
    };
    let length = prose + bytes[prose..].iter().take_while(|b| is_name(b)).count();
    (start, start + length)
}

/// Where the text a value read by `value` can span, starting at `start` of `text`, ends; found
/// in time proportional to the value. A value on one line can span the rest of the text (its
/// pattern stops at the line's end; `\z` is the text's end, where a page was cut). The text of
/// an XML element ends at its first `<` and the `/` after it, or, when it is a CDATA section,
/// at the first `<` after the section, whose end `sections` keeps from one element to the next.
fn value_end(text: &str, start: usize, value: Value, sections: &mut Sections) -> usize {
    match value {
        Value::Any | Value::Flag => text.len(),
        Value::XmlText => {
            let rest = &text[start..];
            let content = start + rest.len() - rest.trim_start().len();
            let from = if text[content..].starts_with("<![CDATA[") {
                match sections.end_after(text, content) {
                    Some(end) => end,
                    None => return start,
                }
            } else {
                start
            };
            match text[from..].find('<') {
                // With the `/` after it when it closes the element: `<` is one byte, `/` too.
                Some(at) if text[from + at..].starts_with("</") => from + at + 2,
                Some(at) => from + at + 1,
                None => text.len(),
            }
        }
    }
}

/// The ends of CDATA sections (just past `]]>`), each searched for once in a text.
#[derive(Default)]
struct Sections {
    /// Where the last search started, and the end it found (`None`: no end past there).
    last: Option<(usize, Option<usize>)>,
}

impl Sections {
    /// The end of the section that starts at `start` of `text`.
    fn end_after(&mut self, text: &str, start: usize) -> Option<usize> {
        if let Some((from, end)) = self.last
            && from <= start
            && end.is_none_or(|end| end > start)
        {
            return end;
        }
        let end = text[start..].find("]]>").map(|at| start + at + 3);
        self.last = Some((start, end));
        end
    }
}

/// `range` of `text` extended to the end of the word it ends in: a token glued to more letters
/// is masked whole, so that no mask ends inside a word (where, masked, the rest of the word
/// would start a new word and match a `\b` pattern the first time did not).
fn to_word_end(text: &str, range: Range<usize>) -> Range<usize> {
    let tail = text[range.end..]
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    range.start..range.end + tail
}

/// Whether a run of token characters looks like a key rather than a word, a path or a digest:
/// letters and digits mixed, and not only hexadecimal digits and hyphens (a hash, a UUID or an
/// id that a tool computed; hexadecimal secrets are caught by their name or their `Bearer`
/// instead).
fn looks_like_key(token: &str) -> bool {
    token.bytes().any(|b| b.is_ascii_digit())
        && token.bytes().any(|b| b.is_ascii_alphabetic())
        && !token.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
}

/// Whether a credential after `Bearer` or `Basic` looks like one rather than a word of prose
/// (`basic understanding`): it has a digit or a symbol, or a capital past its first letter.
fn looks_like_credential(credential: &str) -> bool {
    credential
        .bytes()
        .any(|b| b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'~' | b'+' | b'/' | b'=' | b'-'))
        || credential.bytes().skip(1).any(|b| b.is_ascii_uppercase())
}

/// `text` with secret-shaped strings replaced by [`SECRET_MASK`], by the rules the
/// [module docs](self) describe: private keys, passwords in URLs and command lines, fields whose
/// name says secret, HTTP credentials, password hashes, the shapes of known providers' tokens
/// and long runs of mixed letters and digits. Borrows `text` when nothing is masked.
pub fn mask_secrets(text: &str) -> Cow<'_, str> {
    let rules = STEPS.as_slice();
    // First the rows under a header that names a column as secret, while every header is whole.
    let mut out = match columns::mask_columns(text) {
        Some(masked) => Cow::Owned(masked),
        None => Cow::Borrowed(text),
    };
    // A mask can remove what kept an earlier rule from matching (the `<` of `"a<b"` in
    // `<password>password="a<b"</password>`), so the rules apply in turn, round after round,
    // until each has seen the text as it is and masked nothing: one round for a text without
    // secrets, and after the last rule that masked, only the rules before it again.
    let mut unchanged = 0;
    for rule in rules.iter().cycle().take(MAX_ROUNDS * rules.len()) {
        if let Some(masked) = rule.apply(&out) {
            out = Cow::Owned(masked);
            unchanged = 0;
        } else {
            unchanged += 1;
        }
        if unchanged == rules.len() {
            break;
        }
    }
    out
}

/// Most rounds of the rules over one text.
const MAX_ROUNDS: usize = 4;

static EMAIL: LazyLock<Regex> =
    LazyLock::new(|| regex(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"));

/// `text` with e-mail addresses replaced by [`EMAIL_MASK`].
pub fn mask_emails(text: &str) -> Cow<'_, str> {
    if !EMAIL.is_match(text) {
        return Cow::Borrowed(text);
    }
    EMAIL.replace_all(text, EMAIL_MASK)
}

/// `text` with secrets and then e-mail addresses masked.
pub fn mask(text: &str) -> String {
    mask_emails(&mask_secrets(text)).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `text` with only the rule called `name` applied, or `None` when it masks nothing.
    fn apply_only(name: &str, text: &str) -> Option<String> {
        if name == COLUMNS_RULE {
            return columns::mask_columns(text);
        }
        let rule = RULES
            .iter()
            .find(|rule| rule.name == name)
            .unwrap_or_else(|| panic!("no rule {name}"));
        Compiled::new(rule.kind, rule.pattern).apply(text)
    }

    #[test]
    fn every_pattern_compiles_and_every_name_is_unique() {
        for rule in RULES {
            assert!(
                !Compiled::new(rule.kind, rule.pattern)
                    .regex
                    .as_str()
                    .is_empty()
            );
        }
        assert!(STEPS.len() < RULES.len() / 3, "{} steps", STEPS.len());
        let mut names: Vec<&str> = rule_names().collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(
            names.len(),
            RULES.len() + 1,
            "the rules and the columns pass"
        );
        for value in [Value::Any, Value::Flag, Value::XmlText] {
            assert!(!value_pattern(value).as_str().is_empty());
        }
        assert!(!EMAIL.as_str().is_empty());
    }

    /// Each rule: the input, and the exact output of `mask_secrets`. The rule named must mask
    /// something of the input by itself, and every rule has a case.
    const CASES: &[(&str, &str, &str)] = &[
        // Private keys.
        (
            "private_key_block",
            "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
            "[REDACTED]",
        ),
        (
            "private_key_block",
            "key: -----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n-----END OPENSSH PRIVATE KEY-----\nnext",
            "key: [REDACTED]\nnext",
        ),
        (
            "private_key_block",
            "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOY\n-----END PGP PRIVATE KEY BLOCK-----",
            "[REDACTED]",
        ),
        (
            "private_key_block",
            r#"{"private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQ\n-----END PRIVATE KEY-----\n"}"#,
            r#"{"private_key": [REDACTED]}"#,
        ),
        (
            "private_key_block",
            "cut: -----BEGIN EC PRIVATE KEY-----\nMHcCAQEE",
            "cut: [REDACTED]",
        ),
        (
            "putty_private_key",
            "PuTTY-User-Key-File-3: ssh-ed25519\nPrivate-Lines: 1\nAAAAIBXr2q9\nPrivate-MAC: 5a",
            "PuTTY-User-Key-File-3: ssh-ed25519\nPrivate-Lines: 1\n[REDACTED]\nPrivate-MAC: 5a",
        ),
        // Passwords in URLs and logins.
        (
            "url_password",
            "postgres://ada:hunter2@db.example/app",
            "postgres://ada:[REDACTED]@db.example/app",
        ),
        (
            "url_password",
            "https://user:p/ss@host/x",
            "https://user:[REDACTED]@host/x",
        ),
        (
            "url_password",
            "postgres://u:p@ss@db/x",
            "postgres://u:[REDACTED]@db/x",
        ),
        (
            "url_password",
            "ftp://u:pa ss@h/f",
            "ftp://u:[REDACTED]@h/f",
        ),
        (
            "url_password",
            "redis://:R3d1s@cache:6379/0",
            "redis://:[REDACTED]@cache:6379/0",
        ),
        (
            "oracle_login",
            "jdbc:oracle:thin:scott/T1ger-Pw@db:1521:orcl",
            "jdbc:oracle:thin:scott/[REDACTED]@db:1521:orcl",
        ),
        (
            "oracle_login",
            "sqlplus -s scott/T1ger@prod",
            "sqlplus -s scott/[REDACTED]@prod",
        ),
        // HTTP credentials.
        (
            "scheme_credential",
            "use Bearer abcdefgh12345678",
            "use Bearer [REDACTED]",
        ),
        (
            "scheme_credential",
            "Basic dXNlcjpwYXNz",
            "Basic [REDACTED]",
        ),
        (
            "scheme_credential",
            "Authorization: Bearer abcdefgh12345678",
            "Authorization: [REDACTED] [REDACTED]",
        ),
        (
            "authorization_header",
            "Authorization: Token abc12",
            "Authorization: [REDACTED] [REDACTED]",
        ),
        (
            "cookie_header",
            "Cookie: sid=abc; theme=dark\nHost: x",
            "Cookie: [REDACTED]\nHost: x",
        ),
        (
            "cookie_header",
            "Set-Cookie: id=a3fWa; Path=/",
            "Set-Cookie: [REDACTED]",
        ),
        // Command lines.
        (
            "mysql_password_flag",
            "mysql -h db -u root -pS3cr3t! shop",
            "mysql -h db -u root -p[REDACTED] shop",
        ),
        (
            "mysql_password_flag",
            "mysqldump -u root -p'a b' shop",
            "mysqldump -u root -p[REDACTED] shop",
        ),
        (
            "http_client_user",
            "curl -u ada:Pa55w0rd https://api.test",
            "curl -u ada:[REDACTED] https://api.test",
        ),
        (
            "http_client_user",
            "curl --user 'ada:pa ss' https://x.test",
            "curl --user 'ada:[REDACTED]' https://x.test",
        ),
        (
            "sshpass_password",
            "sshpass -p 'S3cret' ssh ada@host",
            "sshpass -p [REDACTED] ssh ada@host",
        ),
        (
            "redis_cli_password",
            "redis-cli -h cache -a R3dis! ping",
            "redis-cli -h cache -a [REDACTED] ping",
        ),
        (
            "login_password_flag",
            "docker login -u ada -p Dkr-Pw1 registry.test",
            "docker login -u ada -p [REDACTED] registry.test",
        ),
        (
            "capital_p_password_flag",
            "sqlcmd -S db -U sa -P Sql-Pw1 -Q x",
            "sqlcmd -S db -U sa -P [REDACTED] -Q x",
        ),
        (
            "capital_p_password_flag",
            "zip -P Zip-Pw1 out.zip a",
            "zip -P [REDACTED] out.zip a",
        ),
        (
            "archive_password_flag",
            "7z a -pSevenPw1 out.7z dir",
            "7z a -p[REDACTED] out.7z dir",
        ),
        (
            "samba_user_password",
            "smbclient //fs/share -U ada%Smb-Pw1",
            "smbclient //fs/share -U ada%[REDACTED]",
        ),
        (
            "openssl_pass_argument",
            "openssl rsa -in k.pem -passin pass:Ossl-Pw1 -out k2.pem",
            "openssl rsa -in k.pem -passin pass:[REDACTED] -out k2.pem",
        ),
        (
            "htpasswd_batch",
            "htpasswd -b .htpasswd ada Ht-Pw1",
            "htpasswd -b .htpasswd ada [REDACTED]",
        ),
        (
            "htpasswd_batch",
            "see htpasswd -b | htpasswd -b .htpasswd ada Ht-Pw2",
            "see htpasswd -b | htpasswd -b .htpasswd ada [REDACTED]",
        ),
        (
            "chpasswd_input",
            "echo 'ada:Ch-Pw1' | chpasswd",
            "echo 'ada:[REDACTED]' | chpasswd",
        ),
        (
            "config_directive_password",
            "bind 127.0.0.1\nrequirepass R3dis-Conf1g\n",
            "bind 127.0.0.1\nrequirepass [REDACTED]\n",
        ),
        (
            "powershell_secure_string",
            "ConvertTo-SecureString 'Ps-Pw1' -AsPlainText -Force",
            "ConvertTo-SecureString [REDACTED] -AsPlainText -Force",
        ),
        // SQL.
        (
            "sql_password",
            "CREATE USER app IDENTIFIED BY 'Sql-Pw1';",
            "CREATE USER app IDENTIFIED BY [REDACTED];",
        ),
        (
            "sql_password",
            "ALTER ROLE app WITH LOGIN PASSWORD 'Pg-Pw1';",
            "ALTER ROLE app WITH LOGIN PASSWORD [REDACTED];",
        ),
        (
            "sql_password",
            "SET PASSWORD FOR 'ada'@'%' = 'My-Pw1';",
            "SET PASSWORD FOR 'ada'@'%' = [REDACTED];",
        ),
        // Credential files.
        (
            "netrc_password",
            "machine api.test login ada password N3trc-Pw",
            "machine api.test login ada password [REDACTED]",
        ),
        (
            "netrc_password",
            "machine h\n  login ada\n  password N3trc-Pw\n",
            "machine h\n  login ada\n  password [REDACTED]\n",
        ),
        (
            "pgpass_line",
            "db.internal:5432:shop:app:Pg-Pass-1",
            "db.internal:5432:shop:app:[REDACTED]",
        ),
        (
            "pgpass_line",
            "12: *:*:*:replicator:Pg-Pass-2 | next",
            "12: *:*:*:replicator:[REDACTED] | next",
        ),
        (
            "password_hash",
            "ada:$apr1$x8Kq2$Zq1d0s9lYbq6K1hQ2qY7c/",
            "ada:[REDACTED]",
        ),
        (
            "password_hash",
            "ada:$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW",
            "ada:[REDACTED]",
        ),
        (
            "password_hash",
            "ada:{SSHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=",
            "ada:[REDACTED]",
        ),
        // Fields whose name says secret.
        (
            "xml_element",
            "<password>Xml-Pw1</password>",
            "<password>[REDACTED]</password>",
        ),
        (
            "xml_element",
            "<db:Password>\n  Xml-Pw2\n</db:Password>",
            "<db:Password>\n  [REDACTED]\n</db:Password>",
        ),
        (
            "xml_element",
            "<apiKey><![CDATA[a<b]]></apiKey>",
            "<apiKey>[REDACTED]</apiKey>",
        ),
        (
            "xml_key_value",
            r#"<add key="DbPassword" value="Cfg-Pw1"/>"#,
            r#"<add key="DbPassword" value=[REDACTED]/>"#,
        ),
        (
            "xml_key_value",
            r#"<meta name="csrf-token" content="Csrf-1">"#,
            r#"<meta name="csrf-token" content=[REDACTED]>"#,
        ),
        (
            "xml_name_then_value",
            "<property><name>fs.s3a.secret.key</name><value>S3a-Key1</value></property>",
            "<property><name>fs.s3a.secret.key</name><value>[REDACTED]</value></property>",
        ),
        (
            "name_value_pair",
            "- name: DB_PASSWORD\n  value: Env-Pw1",
            "- name: DB_PASSWORD\n  value: [REDACTED]",
        ),
        (
            "name_value_pair",
            r"- name: DB_PASSWORD\n  value: Esc-Env-1",
            r"- name: DB_PASSWORD\n  value: [REDACTED]",
        ),
        (
            "name_value_pair",
            "7: - name: DB_PASSWORD\n8:   value: Env-Pw2",
            "7: - name: DB_PASSWORD\n8:   value: [REDACTED]",
        ),
        (
            "name_value_pair",
            r#"{"name": "api_token", "value": "Tok-1"}"#,
            r#"{"name": "api_token", "value": [REDACTED]}"#,
        ),
        (
            "call_pair",
            "define('DB_PASSWORD', 'Wp-Pw1');",
            "define('DB_PASSWORD', [REDACTED]);",
        ),
        ("assignment", "DB_PASS=Db-Pw1", "DB_PASS=[REDACTED]"),
        ("assignment", "HMAC=Hm-4c1", "HMAC=[REDACTED]"),
        (
            "assignment",
            "09:00:44 WARN DB_PASS=Db-Log-1 psk=Psk-Log-2",
            "09:00:44 WARN DB_PASS=[REDACTED] psk=[REDACTED]",
        ),
        (
            "assignment",
            r#"{"pass": "Js-Pw1"}"#,
            r#"{"pass": [REDACTED]}"#,
        ),
        (
            "assignment",
            "SIGNING_KEY=a3f1c9e07b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f2a4c6e8b0d1f3a",
            "SIGNING_KEY=[REDACTED]",
        ),
        (
            "assignment",
            "ENCRYPTION_KEY=0f1e2d3c4b5a6978",
            "ENCRYPTION_KEY=[REDACTED]",
        ),
        (
            "assignment",
            "api_key=abc123 next",
            "api_key=[REDACTED] next",
        ),
        (
            "assignment",
            "\"password\": \"p w\"",
            "\"password\": [REDACTED]",
        ),
        ("assignment", "password: hunter2", "password: [REDACTED]"),
        ("assignment", "api_key := \"k1\"", "api_key := [REDACTED]"),
        (
            "assignment",
            "'secret' => 'Php-1',",
            "'secret' => [REDACTED],",
        ),
        (
            "assignment",
            r#"config["token"] = "T0k""#,
            r#"config["token"] = [REDACTED]"#,
        ),
        (
            "assignment",
            "Server=db;User Id=sa;Password=Ado-Pw1;",
            "Server=db;User Id=sa;Password=[REDACTED];",
        ),
        (
            "assignment",
            "Driver={ODBC};Uid=sa;Pwd=Odbc-Pw1;",
            "Driver={ODBC};Uid=sa;Pwd=[REDACTED];",
        ),
        (
            "assignment",
            "export GITHUB_TOKEN=gh-local-1",
            "export GITHUB_TOKEN=[REDACTED]",
        ),
        (
            "assignment",
            "password: str = \"Py-Pw1\"",
            "password: str = [REDACTED]",
        ),
        (
            "assignment",
            r#"{\"password\": \"Esc-Pw1\"}"#,
            r#"{\"password\": [REDACTED]}"#,
        ),
        (
            "assignment",
            "**Password:** Md-Pw1",
            "**Password:** [REDACTED]",
        ),
        ("assignment", "API key: Ak-123", "API key: [REDACTED]"),
        ("assignment", "STRIPE_KEY=Sk-Env1", "STRIPE_KEY=[REDACTED]"),
        (
            "assignment",
            "AccountName=a;AccountKey=abc123==;",
            "AccountName=a;AccountKey=[REDACTED];",
        ),
        (
            "assignment",
            "//registry.npmjs.org/:_authToken=Npm-1",
            "//registry.npmjs.org/:_authToken=[REDACTED]",
        ),
        (
            "assignment",
            "https://x.test/?a=1&access_token=Q1&sig=Zz9",
            "https://x.test/?a=1&access_token=[REDACTED]&sig=[REDACTED]",
        ),
        ("assignment", "--password=Fl-Pw2", "--password=[REDACTED]"),
        ("assignment", "X-Api-Key: hdr-k3y", "X-Api-Key: [REDACTED]"),
        ("assignment", r#"psk="W1f1-Psk""#, "psk=[REDACTED]"),
        (
            "assignment",
            "password=prod.secret.value",
            "password=[REDACTED]",
        ),
        (
            "assignment",
            r"ok\napi_key=Esc-Nl-1\n",
            r"ok\napi_key=[REDACTED]\n",
        ),
        (
            "delimited_cells",
            "name,value\nDB_PASS,Csv-Pw1\nHOST,db.local",
            "name,value\nDB_PASS,[REDACTED]\nHOST,db.local",
        ),
        (
            "delimited_cells",
            "3,SIGNING_KEY,\"Quoted,Pw\"",
            "3,SIGNING_KEY,[REDACTED]",
        ),
        (
            "delimited_cells",
            "id;api_token;Semi-1",
            "id;api_token;[REDACTED]",
        ),
        ("delimited_cells", "HMAC\tTab-Salt-2", "HMAC\t[REDACTED]"),
        (
            "delimited_cells",
            "| REDIS_PASSWORD | T-Pw3 |",
            "| REDIS_PASSWORD | [REDACTED] |",
        ),
        (
            "delimited_cells",
            "+STRIPE_KEY,Diff-Key-4",
            "+STRIPE_KEY,[REDACTED]",
        ),
        (
            "delimited_cells",
            "12: \"db_password\",\"Row-Pw-5\"",
            "12: \"db_password\",[REDACTED]",
        ),
        (
            "mysql_password_flag",
            r#""mysql -p","mysql -h db -pCsv-My-1 shop""#,
            r#""mysql -p[REDACTED] -h db -p[REDACTED] shop""#,
        ),
        (
            "assignment",
            r#""{""pass"": ""Csv-Json-2""}""#,
            r#""{""pass"": [REDACTED]}""#,
        ),
        (
            "assignment",
            r#""secret = ""Csv-Toml-3""""#,
            r#""secret = [REDACTED]""#,
        ),
        (
            "assignment",
            r#""{\\\"client_secret\\\": \\\"Deep-Esc-4\\\"}""#,
            r#""{\\\"client_secret\\\": [REDACTED]}""#,
        ),
        (
            "delimited_cells",
            r#""tab": "REDIS_AUTH\tJson-Tab-5""#,
            r#""tab": "REDIS_AUTH\t[REDACTED]""#,
        ),
        (
            "delimited_cells",
            "<p>SMTP_PASSWORD,Html-Cell-6</p>",
            "<p>SMTP_PASSWORD,[REDACTED]</p>",
        ),
        (
            "xml_key_value",
            r#""<meta name=\"csrf-token\" content=\"Esc-Csrf-7\">""#,
            r#""<meta name=\"csrf-token\" content=[REDACTED]>""#,
        ),
        (
            "pgpass_line",
            "<p>db.internal:5432:shop:app:Html-Pg-8</p>",
            "<p>db.internal:5432:shop:app:[REDACTED]",
        ),
        (
            "assignment",
            r#"  "FERNET_KEY": "Json-Env-9","#,
            r#"  "FERNET_KEY": [REDACTED],"#,
        ),
        (
            "xml_key_value",
            r#""<meta name=""csrf-token"" content=""Csv-Csrf-10"">""#,
            r#""<meta name=""csrf-token"" content=[REDACTED]>""#,
        ),
        (
            "name_value_pair",
            r#""{""name"": ""API_TOKEN"", ""value"": ""Csv-Pair-11""}""#,
            r#""{""name"": ""API_TOKEN"", ""value"": [REDACTED]}""#,
        ),
        (
            "name_value_pair",
            "+- name: DB_PASSWORD\n+  value: Diff-Pair-12",
            "+- name: DB_PASSWORD\n+  value: [REDACTED]",
        ),
        (
            "pgpass_line",
            "+db.internal:5432:shop:app:Diff-Pg-13",
            "+db.internal:5432:shop:app:[REDACTED]",
        ),
        (
            "name_value_pair",
            "  2 7da42bf Ada:- name: DB_PASSWORD\n  3 7da42bf Ada:  value: Blame-Pair-14",
            "  2 7da42bf Ada:- name: DB_PASSWORD\n  3 7da42bf Ada:  value: [REDACTED]",
        ),
        (
            "assignment",
            "-FERNET_KEY=Diff-Env-15",
            "-FERNET_KEY=[REDACTED]",
        ),
        // Escaped, the element's text runs to the next real tag: the closing tag goes with it.
        (
            "xml_element",
            "<p>&lt;password&gt;Esc-Xml-16&lt;/password&gt;</p>",
            "<p>&lt;password&gt;[REDACTED]</p>",
        ),
        (
            "xml_name_then_value",
            "&lt;name&gt;fs.s3a.secret.key&lt;/name&gt;&lt;value&gt;Esc-H-17&lt;/value&gt;",
            "&lt;name&gt;fs.s3a.secret.key&lt;/name&gt;&lt;value&gt;[REDACTED]&lt;/value&gt;",
        ),
        (
            "xml_key_value",
            "&lt;meta name=&quot;csrf-token&quot; content=\"Esc-Meta-18\"&gt;",
            "&lt;meta name=&quot;csrf-token&quot; content=[REDACTED]&gt;",
        ),
        (
            "assignment",
            "'db_password' =&gt; 'Esc-Php-19',",
            "'db_password' =&gt; [REDACTED],",
        ),
        // `delimited_cells` takes the header's `role` for the password's value too: masking
        // a name is the price of masking `DB_PASS,hunter22` wherever it stands.
        (
            "columns",
            "user,password,role\nada,Col-Pw-20,admin\ngrace,\"Col, Pw 21\",dev\n\ndone,x",
            "user,password,[REDACTED]\nada,[REDACTED],admin\ngrace,[REDACTED],dev\n\ndone,x",
        ),
        (
            "columns",
            "| name | api_token |\n|---|---|\n| ci | Col-Tok-22 |",
            "| name | api_token |\n|---|---|\n| ci | [REDACTED] |",
        ),
        (
            "columns",
            "+DB_PASS,HMAC\n+Col-Pw-23,Col-Hm-24",
            "+DB_PASS,HMAC\n+[REDACTED],[REDACTED]",
        ),
        (
            "columns",
            "    1 3f9a1c0e Ada Lovelace: id;SIGNING_KEY\n    2 3f9a1c0e Ada Lovelace: 7;Col-Sig-25",
            "    1 3f9a1c0e Ada Lovelace: id;SIGNING_KEY\n    2 3f9a1c0e Ada Lovelace: 7;[REDACTED]",
        ),
        ("flag_value", "--password Fl-Pw1", "--password [REDACTED]"),
        (
            "flag_value",
            "--api-key Ak-1 --verbose",
            "--api-key [REDACTED] --verbose",
        ),
        ("flag_value", "-Password 'Ps-2'", "-Password [REDACTED]"),
        (
            "flag_value",
            "keytool -storepass Ks-Pw1 -list",
            "keytool -storepass [REDACTED] -list",
        ),
        // Tokens of known providers.
        (
            "sk_api_key",
            "key sk-abcdefghijklmnop1234",
            "key [REDACTED]",
        ),
        (
            "sk_api_key",
            "use sk-ant-api03-Zq8Xw7Vu6Ts5Rq4Po3Nm2",
            "use [REDACTED]",
        ),
        (
            "stripe_key",
            "stripe rk_live_9aBcDeFgHiJk",
            "stripe [REDACTED]",
        ),
        (
            "stripe_webhook_secret",
            "whsec_3fGh7JkLm9NpQr2StUv4",
            "[REDACTED]",
        ),
        (
            "github_token",
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "[REDACTED]",
        ),
        (
            "github_fine_grained_token",
            "github_pat_11ABCDEFG0abcdefghijklmnop",
            "[REDACTED]",
        ),
        ("gitlab_token", "glpat-Xy7Zw8Vu9Ts0Rq1Po2Nm3", "[REDACTED]"),
        ("gitlab_token", "gldt-Ab1Cd2Ef3Gh4Ij5Kl6Mn", "[REDACTED]"),
        ("slack_token", "xoxb-2048-4096-AbCdEfGh", "[REDACTED]"),
        ("slack_token", "xapp-1-A0B1C2D3-4567", "[REDACTED]"),
        (
            "webhook_url",
            "https://hooks.slack.com/services/T0A/B0G/Mn3Op4",
            "https://[REDACTED]",
        ),
        (
            "webhook_url",
            "https://discord.com/api/webhooks/1234/AbC-dEf",
            "https://[REDACTED]",
        ),
        (
            "discord_bot_token",
            "MTAxNTc4NDc1NTU2NjI4ODk4MA.GfXyZa.a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R",
            "[REDACTED]",
        ),
        (
            "telegram_bot_token",
            "bot 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw",
            "bot [REDACTED]",
        ),
        ("aws_access_key_id", "AKIAABCDEFGHIJKLMNOP", "[REDACTED]"),
        (
            "aws_access_key_id",
            "aws ASIAY34FZKBOKMUTVV7A",
            "aws [REDACTED]",
        ),
        (
            "google_credential",
            "maps AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",
            "maps [REDACTED]",
        ),
        (
            "google_credential",
            "GOCSPX-AbCdEfGhIjKlMnOpQrStUvWx",
            "[REDACTED]",
        ),
        (
            "google_credential",
            "refresh 1//0gAbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefgh",
            "refresh [REDACTED]",
        ),
        (
            "azure_client_secret",
            "abc8Q~AbCdEfGhIjKlMnOpQrStUvWxYz01234",
            "[REDACTED]",
        ),
        (
            "jwt",
            "jwt eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl",
            "jwt [REDACTED]",
        ),
        (
            "sendgrid_key",
            "SG.ngeVfQFYQlKU0ufo8x5d1A.TwL2iGABf9DHoTf-09kqeF8tA",
            "[REDACTED]",
        ),
        (
            "twilio_api_key",
            "twilio SK0123456789abcdef0123456789abcdef",
            "twilio [REDACTED]",
        ),
        (
            "mailgun_key",
            "mg key-0123456789abcdef0123456789abcdef",
            "mg [REDACTED]",
        ),
        (
            "mailchimp_key",
            "0123456789abcdef0123456789abcdef-us12",
            "[REDACTED]",
        ),
        (
            "npm_token",
            "npm_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
            "[REDACTED]",
        ),
        (
            "pypi_token",
            "pypi-AgEIcHlwaS5vcmcCJGE3ZjE5YjM4LTkx",
            "[REDACTED]",
        ),
        (
            "huggingface_token",
            "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCd",
            "[REDACTED]",
        ),
        (
            "shopify_token",
            "shpat_0123456789abcdef0123456789abcdef",
            "[REDACTED]",
        ),
        (
            "digitalocean_token",
            "dop_v1_4f2e8a9b1c3d5e7f9a0b2c4d6e8f0a1b3c5d7e9f1a2b4c6d8e0f2a4b6c8d0e2f4a",
            "[REDACTED]",
        ),
        (
            "vault_token",
            "vault hvs.CAESIJlMhJ9kQ2xY7wZ3mN5p",
            "vault [REDACTED]",
        ),
        (
            "age_secret_key",
            "AGE-SECRET-KEY-1QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ",
            "[REDACTED]",
        ),
        (
            "platform_token",
            "dapi0123456789abcdef0123456789abcdef",
            "[REDACTED]",
        ),
        (
            "platform_token",
            "lin_api_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCd",
            "[REDACTED]",
        ),
        (
            "terraform_cloud_token",
            "tf AbCdEfGhIjKlMn.atlasv1.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz01",
            "tf [REDACTED]",
        ),
        (
            "service_token",
            "sq0atp-AbCdEfGhIjKlMnOpQrStUv",
            "[REDACTED]",
        ),
        ("service_token", "LTAI5tAbCdEfGhIjKlMnOpQr", "[REDACTED]"),
        (
            "ai_provider_key",
            "gsk_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKl",
            "[REDACTED]",
        ),
        // Long tokens.
        (
            "long_token",
            "id 0123456789abcdef0123456789abcdefXY",
            "id [REDACTED]",
        ),
        (
            "long_token",
            "run-0190f5c47d1e7a3b9c2d5e8f10a2b3c4XYZ",
            "[REDACTED]",
        ),
    ];

    #[test]
    fn each_rule_masks_exactly_its_shape() {
        for (rule, input, expected) in CASES {
            assert_eq!(mask_secrets(input), *expected, "{rule}: {input}");
            if input != expected {
                assert!(
                    apply_only(rule, input).is_some(),
                    "{rule} alone masks nothing of {input}"
                );
            }
        }
        let untested: Vec<&str> = rule_names()
            .filter(|name| !CASES.iter().any(|(rule, ..)| rule == name))
            .collect();
        assert_eq!(untested, Vec::<&str>::new(), "rules without a case");
    }

    /// Ordinary text, and secret words without a secret, that must pass unchanged.
    const UNCHANGED: &[&str] = &[
        "plain words only",
        "Enter your user, password, email and phone.",
        "password, please\nOk, thanks",
        "name,password_length\nada,16",
        "user,password\nada,${ADA_PASSWORD}\ngrace,",
        "name,value\nHOST,db.local\nPORT,5432",
        "| name | type |\n| password_length | integer |",
        "DB_PASS,${DB_PASS}",
        "sha256:13372360cc1f5e93f57306f602f7ea02238fc79fd38fa1b9887ebb5f041d8448",
        "/usr/local/bin:/usr/bin",
        // UUIDs are ids a tool made, not keys (the `uuid` tool's answer stays readable).
        "0190f5c4-7d1e-7a3b-9c2d-5e8f10a2b3c4\n6f1c2a9e-3b4d-4e8f-a1b2-c3d4e5f60718",
        "commit 3f9a1c0e2b4d6f8a0c1e3b5d7f9a2c4e6b8d0f1a\nAuthor: Ada <ada@example.com>",
        "The passage mentions a keyboard and a tokenizer.",
        "The password is stored hashed; reset it from the settings page.",
        "Forgot password? Enter your password below.",
        "Password: is required",
        "max_tokens: 100",
        r#"{"prompt_tokens": 12, "completion_tokens": 3}"#,
        "token_type: bearer",
        "password_length: 16",
        "secret_name: db-credentials",
        "--token-file /run/token and --password-stdin -u ada",
        "PWD=/home/ada",
        "OLDPWD=/tmp",
        "keyboard: us",
        "monkey=banana",
        "primary_key: id",
        "password: ${DB_PASSWORD}",
        "token: $API_TOKEN",
        "password: <your-password>",
        "password: '****'",
        "password: null",
        r#""password": true"#,
        r#""password": {"type": "string"}"#,
        "let password = read_password()?;",
        "password: password.clone(),",
        "token: Option<String>,",
        "api_key = os.getenv(\"API_KEY\")",
        "password: form.password.data",
        "token: event.token, SECRET_KEY = settings.SECRET_KEY",
        "PASS: test_login",
        "The page's own requests pass: its Host, its Origin, its token.",
        "WARN Auth: ok",
        "Signature: Ada Lovelace",
        "tokenizer: bpe",
        "passage: 3",
        "compass=north",
        "/etc/passwd: root:x:0:0",
        "ada ALL=(ALL) NOPASSWD: ALL",
        "basic understanding of the token generation step",
        "Bearer authentication is described below.",
        "http://localhost:8080/a?mail=ada@example.com",
        "https://example.com:443/x",
        "ssh://git@github.com:22/x.git",
        "mysql -u root -p shop",
        "mysql -P 3306 -u root shop",
        "docker run -u 1000:1000 image",
        "<key>name</key> <passwordPolicy>strict</passwordPolicy> <token/>",
        r#"<add key="Theme" value="dark"/>"#,
        "fe80:0:0:0:1",
        "<token>é<é",
        "Use --token to set it.",
        "toolkit-builtins/tests/secrets_wire.rs",
        "[REDACTED] stays [REDACTED]; password=[REDACTED]",
    ];

    #[test]
    fn ordinary_text_is_left_alone() {
        for text in UNCHANGED {
            let masked = mask_secrets(text);
            assert!(matches!(masked, Cow::Borrowed(_)), "{text} -> {masked}");
        }
        assert_eq!(mask_emails("to ada.l@example.co.uk."), "to [EMAIL].");
    }

    #[test]
    fn secret_names() {
        for name in [
            "AWS_SECRET_ACCESS_KEY",
            "github_token",
            "DB_PASSWORD",
            "MY_AUTH",
            "SENTRY_DSN",
            "HMAC",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in ["PATH", "HOME", "PWD", "GIT_AUTHOR_NAME", "LANG"] {
            assert!(!is_secret_name(name), "{name}");
        }
    }

    #[test]
    fn field_names_split_into_words() {
        assert_eq!(name_words("dbPassword"), ["db", "password"]);
        assert_eq!(name_words("APIKey"), ["api", "key"]);
        assert_eq!(
            name_words("AWS_SECRET_ACCESS_KEY"),
            ["aws", "secret", "access", "key"]
        );
        assert_eq!(
            name_words("fs.s3a.secret.key"),
            ["fs", "s3a", "secret", "key"]
        );
        assert_eq!(name_words("--password2"), ["password"]);
        for name in [
            "DB_PASS",
            "apiKey",
            "clientSecret",
            "JSESSIONID",
            "session_id",
        ] {
            assert!(is_secret_field(name, "="), "{name}");
        }
        for name in [
            "compass",
            "passage",
            "OAuth",
            "max_tokens",
            "key_id",
            "public_key",
        ] {
            assert!(!is_secret_field(name, "="), "{name}");
        }
    }

    /// Texts the property tests below once found masked differently the second time.
    #[test]
    fn texts_found_by_the_properties_mask_once_for_all() {
        for (text, masked) in [
            // A token glued to the next: masked to the end of the word.
            ("AKIAABCDEFGHIJKLMNOPAKIAABCDEFGHIJKLMNOP", "[REDACTED]"),
            // A quoted shell word glued to more: the whole word.
            ("mysql -p\": \"!", "mysql -p[REDACTED]"),
            // A flag's value that, masked, unblocked an XML element: no flag's value starts with
            // `<` (and the rules apply again until nothing changes).
            (
                "<password>=--password <--password </password>",
                "<password>=--password <--password </password>",
            ),
            (
                "AKIAABCDEFGHIJKLMNOPBearer api_key/password",
                "[REDACTED] api_key/password",
            ),
            // A value's backslash before a line break does not carry it to the next line.
            (
                "password: Pw-9\\\n**Password:** Md-Pw1",
                "password: [REDACTED]\\\n**Password:** [REDACTED]",
            ),
            // An element's text cut at a `<` before a character of two bytes.
            ("<password><¡", "<password><¡"),
        ] {
            assert_eq!(mask_secrets(text), masked, "{text}");
            assert_eq!(mask_secrets(masked), masked, "{text}");
        }
    }

    /// Pieces of text that, put together at random, make the shapes the rules look for and the
    /// ones they must leave alone.
    const PIECES: &[&str] = &[
        "password",
        "PASS",
        "token",
        "api_key",
        "Authorization",
        "Bearer ",
        "Basic ",
        "key",
        "secret",
        "auth",
        "=",
        ": ",
        "\": \"",
        "\"",
        "'",
        "`",
        " ",
        "\n",
        ",",
        ";",
        "&",
        "@",
        ":",
        "/",
        "://",
        "https",
        "-p",
        "--password ",
        "-u ",
        "curl ",
        "mysql ",
        "<password>",
        "</password>",
        "<name>",
        "value: ",
        "- name: ",
        "-----BEGIN RSA PRIVATE KEY-----",
        "-----END RSA PRIVATE KEY-----",
        "hunter2",
        "[REDACTED]",
        "[RED",
        "ACTED]",
        "sk-abcdefghijklmnop1234",
        "0123456789abcdef0123456789abcdefXY",
        "0123456789abcdef0123456789abcdef",
        "AKIAABCDEFGHIJKLMNOP",
        "eyJhbGciOi.eyJzdWIiOi.c2ln",
        "$6$salt$",
        "machine h login a password ",
        "${X}",
        "**",
        "\\\"",
        "é",
        "…",
    ];

    fn texts() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            3 => proptest::sample::select(PIECES).prop_map(str::to_owned),
            1 => "[ -~]{0,12}",
            1 => "\\PC{0,4}",
        ];
        proptest::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1_000))]

        /// Masking a masked text changes nothing.
        #[test]
        fn masking_is_idempotent(text in texts()) {
            let once = mask_secrets(&text).into_owned();
            let twice = mask_secrets(&once);
            prop_assert_eq!(twice.as_ref(), once.as_str());
            let once = mask(&text);
            prop_assert_eq!(mask(&once), once);
        }

        /// Any run of whole lines of a masked text (a page of it) is masked already.
        #[test]
        fn lines_of_a_masked_text_stay_as_they_are(text in texts(), from in 0_usize..50, count in 1_usize..50) {
            let masked = mask_secrets(&text).into_owned();
            let lines: Vec<&str> = masked.split('\n').collect();
            let from = from.min(lines.len() - 1);
            let page = lines[from..(from + count).min(lines.len())].join("\n");
            let again = mask_secrets(&page);
            prop_assert_eq!(again.as_ref(), page.as_str());
        }

        /// A secret on a line of its own is masked whatever lines surround it.
        #[test]
        fn a_planted_secret_is_masked_whatever_surrounds_it(
            before in texts(),
            after in texts(),
            case in 0..CASES.len(),
        ) {
            let (rule, input, expected) = CASES[case];
            let secret = masked_part(input, expected);
            if before.contains(secret) || after.contains(secret) {
                // The secret is in the filler too, maybe glued to what keeps it from being one.
                return Ok(());
            }
            let text = format!("{before}\n{input}\n{after}");
            let masked = mask_secrets(&text);
            prop_assert!(
                !masked.contains(secret),
                "{} left {:?} in {:?}", rule, secret, masked
            );
        }
    }

    /// The last part of `input` that `expected` replaces by the mask (the credential, where a
    /// header's scheme is masked too).
    fn masked_part<'a>(input: &'a str, expected: &str) -> &'a str {
        let (head, tail) = expected.rsplit_once(SECRET_MASK).unwrap_or((expected, ""));
        let head = head.rsplit(SECRET_MASK).next().unwrap_or("");
        let start = input[..input.len() - tail.len()]
            .rfind(head)
            .map_or(0, |at| at + head.len());
        &input[start..input.len() - tail.len()]
    }
}
