#![no_main]

// The usi reader alone (the `records` target reads the same input as every format).
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    gyoku_kifu::fuzzing::records_as(data, gyoku_kifu::Format::Usi)
});
