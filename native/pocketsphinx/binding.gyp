{
  "targets": [{
    "target_name": "parla_pocketsphinx",
    "sources": ["src/addon.cc"],
    "include_dirs": [
      "<!(node -p \"require('node-addon-api').include_dir\")",
      "<!@(pkg-config --cflags-only-I pocketsphinx sphinxbase | sed s/-I//g)"
    ],
    "libraries": ["<!@(pkg-config --libs pocketsphinx sphinxbase)"],
    "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS"],
    "cflags_cc": ["-O2", "-std=c++17"],
    "cflags!": ["-fno-exceptions"],
    "cflags_cc!": ["-fno-exceptions"]
  }]
}
