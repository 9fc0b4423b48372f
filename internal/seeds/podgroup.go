package seeds

// Seed001Example2 is seed 001's Example 2 as a KAI PodGroup spec in seed 002's API
// (minSubGroup counts SubGroups where seed 001 wrote minMember): decode and prefill
// each inside one block, and each leaders / workers SubGroup inside one rack.
const Seed001Example2 = `{
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
