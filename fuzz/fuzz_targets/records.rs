#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gyoku_kifu::fuzzing::records(data));
