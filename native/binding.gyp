{
  "targets": [
    {
      "target_name": "acp_forward",
      "sources": ["forward.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
      "conditions": [["OS!='linux'", {"type": "none"}]]
    }
  ]
}
