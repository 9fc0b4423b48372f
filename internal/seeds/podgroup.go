package seeds

// DecodePrefill is Example 2 of KAI's hierarchical-PodGroup design, written with the
// later minSubGroup field (the design wrote minMember at the PodGroup and at mid-level
// SubGroups to count SubGroups, which minSubGroup now does): decode and prefill each
// inside one block, and each leaders / workers SubGroup inside one rack.
const DecodePrefill = `{
  "minSubGroup": 2,
  "subGroups": [
    {"name": "decode", "minSubGroup": 2},
    {"name": "decode-workers", "parent": "decode", "minMember": 4},
    {"name": "decode-leaders", "parent": "decode", "minMember": 1},
    {"name": "prefill", "minSubGroup": 2},
    {"name": "prefill-workers", "parent": "prefill", "minMember": 4},
    {"name": "prefill-leaders", "parent": "prefill", "minMember": 1}
  ],
  "topologyConstraints": {
    "subGroups": {
      "decode-workers": {"requiredTopologyLevel": "rack"},
      "decode-leaders": {"requiredTopologyLevel": "rack"},
      "prefill-workers": {"requiredTopologyLevel": "rack"},
      "prefill-leaders": {"requiredTopologyLevel": "rack"}
    },
    "subGroupSets": [
      {"subGroups": ["decode-workers", "decode-leaders"], "constraint": {"requiredTopologyLevel": "block"}},
      {"subGroups": ["prefill-workers", "prefill-leaders"], "constraint": {"requiredTopologyLevel": "block"}}
    ]
  }
}`
