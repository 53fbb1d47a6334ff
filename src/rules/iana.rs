//! The IANA URI scheme registry, as far as text meets it: in the modern
//! profile a registered scheme is checked with the generic syntax and
//! draws no `unknown-scheme` note even when that note is turned on.
//!
//! Source: IANA "Uniform Resource Identifier (URI) Schemes",
//! <https://www.iana.org/assignments/uri-schemes/>, permanent and
//! provisional entries, transcribed 2026-11-23 from the registry as last
//! reviewed by the maintainers (entries up to its 2024 updates). It is a
//! subset: the registry's vendor-specific entries (`ms-*` and the like)
//! are left out, and historical entries (`afs`, `fax`, `modem`, `prospero`,
//! ...) are not here because they are not in use. Keep the list sorted: a
//! test checks it, and lookup is a binary search.
pub(crate) const REGISTERED: &[&str] = &[
    "aaa",
    "aaas",
    "about",
    "acap",
    "acct",
    "acr",
    "afp",
    "aim",
    "apt",
    "attachment",
    "bitcoin",
    "bitcoincash",
    "blob",
    "callto",
    "cap",
    "chrome",
    "chrome-extension",
    "cid",
    "coap",
    "coap+tcp",
    "coap+ws",
    "coaps",
    "coaps+tcp",
    "coaps+ws",
    "content",
    "crid",
    "cvs",
    "dat",
    "data",
    "dav",
    "dict",
    "did",
    "dns",
    "doi",
    "dtn",
    "ed2k",
    "ethereum",
    "example",
    "facetime",
    "feed",
    "file",
    "finger",
    "fish",
    "ftp",
    "geo",
    "git",
    "go",
    "gopher",
    "h323",
    "http",
    "https",
    "iax",
    "icap",
    "im",
    "imap",
    "info",
    "ipfs",
    "ipn",
    "ipns",
    "ipp",
    "ipps",
    "irc",
    "irc6",
    "ircs",
    "iris",
    "itms",
    "jabber",
    "jar",
    "javascript",
    "ldap",
    "ldaps",
    "magnet",
    "mailto",
    "maps",
    "market",
    "matrix",
    "message",
    "mid",
    "mms",
    "mongodb",
    "msrp",
    "msrps",
    "mt",
    "mumble",
    "mupdate",
    "mvn",
    "news",
    "nfs",
    "ni",
    "nih",
    "nntp",
    "notes",
    "oid",
    "opaquelocktoken",
    "openpgp4fpr",
    "otpauth",
    "payto",
    "pkcs11",
    "pop",
    "pres",
    "redis",
    "rediss",
    "reload",
    "res",
    "resource",
    "rmi",
    "rsync",
    "rtmfp",
    "rtmp",
    "rtsp",
    "rtsps",
    "rtspu",
    "secondlife",
    "service",
    "session",
    "sftp",
    "sgn",
    "sieve",
    "sip",
    "sips",
    "skype",
    "slack",
    "smb",
    "sms",
    "smtp",
    "snmp",
    "soap.beep",
    "soap.beeps",
    "spotify",
    "ssh",
    "steam",
    "stun",
    "stuns",
    "submit",
    "svn",
    "swh",
    "tag",
    "teamspeak",
    "tel",
    "telnet",
    "tftp",
    "thismessage",
    "tip",
    "tn3270",
    "tool",
    "turn",
    "turns",
    "tv",
    "udp",
    "urn",
    "vemmi",
    "ventrilo",
    "view-source",
    "vnc",
    "vscode",
    "vscode-insiders",
    "web+ap",
    "webcal",
    "wifi",
    "ws",
    "wss",
    "xcon",
    "xcon-userid",
    "xmlrpc.beep",
    "xmlrpc.beeps",
    "xmpp",
    "xri",
    "ymsgr",
    "z39.50r",
    "z39.50s",
];

/// Schemes not in the registry that tools and documentation use every day
/// (package managers' `git+ssh:` and `svn+ssh:`, object stores' `s3:`,
/// database connection strings): known by name like the registered ones,
/// because an `unknown-scheme` note on them would only be noise. Sorted.
pub(crate) const DE_FACTO: &[&str] = &[
    "amqp",
    "amqps",
    "git+file",
    "git+http",
    "git+https",
    "git+ssh",
    "gs",
    "hg",
    "jdbc",
    "mysql",
    "postgres",
    "postgresql",
    "s3",
    "svn+ssh",
];

/// Whether `scheme` (lower case) is registered with IANA or in de facto use.
pub(crate) fn is_known(scheme: &str) -> bool {
    REGISTERED.binary_search(&scheme).is_ok() || DE_FACTO.binary_search(&scheme).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted_lower_case_scheme_names() {
        for table in [REGISTERED, DE_FACTO] {
            assert!(table.windows(2).all(|w| w[0] < w[1]), "sorted and unique");
            for s in table {
                assert!(s.starts_with(|c: char| c.is_ascii_lowercase()), "{s}");
                assert!(
                    s.bytes().all(|b| b.is_ascii_lowercase()
                        || b.is_ascii_digit()
                        || b"+-.".contains(&b)),
                    "{s}"
                );
            }
        }
        for s in ["ws", "wss", "ssh", "git", "ldap", "rtsp", "imap", "irc", "git+ssh", "s3"] {
            assert!(is_known(s), "{s}");
        }
        assert!(!is_known("htp"));
        assert!(!is_known("afs"));
    }
}
