{
  "targets": [{
    "target_name": "parla_flite",
    "sources": ["src/addon.cc"],
    "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
    "libraries": [
      "-lflite_cmu_us_kal16", "-lflite_cmu_us_slt", "-lflite_cmu_us_rms", "-lflite_cmu_us_awb",
      "-lflite_usenglish", "-lflite_cmulex", "-lflite", "-lm"
    ],
    "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS"],
    "cflags_cc": ["-O2", "-std=c++17"],
    "cflags!": ["-fno-exceptions"],
    "cflags_cc!": ["-fno-exceptions"]
  }]
}
