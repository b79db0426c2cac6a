#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gyoku::fuzzing::legals_are_legal(data));
