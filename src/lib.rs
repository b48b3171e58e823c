//! zingrs: engines and reporting.
