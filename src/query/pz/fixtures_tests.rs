//! Every fixture project under `fixtures/pz-projects/` answered and compared byte for byte
//! with its committed expectations.
