#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gyoku::fuzzing::usi_move(data));
