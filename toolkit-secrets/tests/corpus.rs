//! Every shape of the corpus is masked where it stands, and only there: the secret part is gone
//! from the masked text, the text around it stays, and masking again changes nothing.

use toolkit_secrets::corpus::CORPUS;
use toolkit_secrets::{SECRET_MASK, mask_secrets};

#[test]
fn every_shape_of_the_corpus_is_masked() {
    assert_eq!(CORPUS.len(), 171, "the corpus the docs count");
    let mut shown = Vec::new();
    for &(name, text, secret) in CORPUS {
        assert!(
            text.contains(secret),
            "{name}: the secret is part of the text"
        );
        let masked = mask_secrets(text);
        if masked.contains(secret) || !masked.contains(SECRET_MASK) {
            shown.push(format!("{name}: {masked}"));
        }
        assert_eq!(mask_secrets(&masked), masked, "{name}: masking twice");
    }
    assert_eq!(shown, Vec::<String>::new(), "shapes shown unmasked");
}

#[test]
fn every_shape_has_its_own_name() {
    let mut names: Vec<&str> = CORPUS.iter().map(|(name, _, _)| *name).collect();
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(names.len(), before, "a name given twice");
}
