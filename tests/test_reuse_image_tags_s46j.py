"""Which image tags move (s46j, CONTRACTS section 9), checked against every image of the reference's history.

s45h held back from reuse only the conventional moving tags (no tag, `latest`, `nightly`, `main`, `dev`, ...), so a
rolling build named after a model or a feature (`vllm/vllm-openai:kimi-k3`, `lmsysorg/sglang:deepseek-v4-blackwell`,
`rocm/sgl-dev:deepseek-v4-mi35x`) was reused as if pinned, though its next push is another engine under the same
string. Now a tag is pinned only when it carries a version, a date or a commit, or the image names a digest; every
other tag moves. The lists below are every image string the corpus's history of the reference names (its master
configs' `image:` lines and the changelog's prose), each with its verdict: no real pinned tag may read as moving (a
needless re-run of its rows), and each real rolling build must."""

from __future__ import annotations

import pytest

from test_reuse import remaining_rows
from test_reuse_images_s45h import reused_at_merge_with

from sweepgate.results import reuse

# Every image of the corpus (/work/shared/corpus, the reference up to 843c6254) whose tag carries a version
# (`v0.5.17`, `1.3.0rc24`, `vllm0.23`), a date (`20260821`, `0820`, `nightly_202608201032`) or a commit
# (`426e59f`, `vllm5517197`), or that names a digest.
REAL_PINNED = """
aigmkt/k3-dspark-benchmark:unified-k3-agentx-20260814-v2
aigmkt/mori-dev:sglang-0.5.17-rocm720-mi35x-mori-0812
aigmkt/mori-dev:sglang-0.5.17-rocm720-mi35x-mori-0814
ghcr.io/ezrasilvera/llm-d-nokube-vllm:vllm0.23
ghcr.io/semianalysisai/trtllm-deepseek-v4:feat-deepseek_v4-9aa3715
ghcr.io/semianalysisai/trtllm-deepseek-v4:feat-deepseek_v4-c185066
ghcr.io/tile-ai/tilert:0.1.5
inferactinc/public:sprint-agentx-fast-x86_64-cu13.0.1-6a1e7bf
kvcacheai/mooncake:0.3.12.post1-cuda13
lmsysorg/sglang-rocm:v0.5.10rc0-rocm720-mi35x-20260413
lmsysorg/sglang-rocm:v0.5.10rc0-rocm720-mi35x-20260414
lmsysorg/sglang-rocm:v0.5.10rc0-rocm720-mi35x-20260415
lmsysorg/sglang-rocm:v0.5.11-rocm700-mi35x-20260511
lmsysorg/sglang-rocm:v0.5.11-rocm720-mi35x-20260513
lmsysorg/sglang-rocm:v0.5.12-rocm720-mi35x-20260517
lmsysorg/sglang-rocm:v0.5.12-rocm720-mi35x-20260519
lmsysorg/sglang-rocm:v0.5.12-rocm720-mi35x-20260521
lmsysorg/sglang-rocm:v0.5.12.post1-rocm720-mi35x-20260523
lmsysorg/sglang-rocm:v0.5.12.post1-rocm720-mi35x-20260528
lmsysorg/sglang-rocm:v0.5.12.post1-rocm720-mi35x-20260529
lmsysorg/sglang-rocm:v0.5.12.post1-rocm720-mi35x-20260601
lmsysorg/sglang-rocm:v0.5.12.post1-rocm720-mi35x-20260604
lmsysorg/sglang-rocm:v0.5.13-rocm720-mi35x-20260612
lmsysorg/sglang-rocm:v0.5.13.post1-rocm720-mi35x-20260618
lmsysorg/sglang-rocm:v0.5.14-rocm720-mi35x-20260701
lmsysorg/sglang-rocm:v0.5.14-rocm720-mi35x-20260706
lmsysorg/sglang-rocm:v0.5.14-rocm720-mi35x-20260708
lmsysorg/sglang-rocm:v0.5.14-rocm720-mi35x-20260710
lmsysorg/sglang-rocm:v0.5.15-rocm700-mi35x-20260713
lmsysorg/sglang-rocm:v0.5.15-rocm720-mi30x-20260713
lmsysorg/sglang-rocm:v0.5.15-rocm720-mi35x-20260713
lmsysorg/sglang-rocm:v0.5.15.post1-rocm700-mi35x-20260721
lmsysorg/sglang-rocm:v0.5.15.post1-rocm720-mi35x-20260714
lmsysorg/sglang-rocm:v0.5.15.post1-rocm720-mi35x-20260719
lmsysorg/sglang-rocm:v0.5.16-rocm720-mi30x-20260730
lmsysorg/sglang-rocm:v0.5.16-rocm720-mi35x-20260726
lmsysorg/sglang-rocm:v0.5.16-rocm720-mi35x-20260728
lmsysorg/sglang-rocm:v0.5.16-rocm720-mi35x-20260729
lmsysorg/sglang-rocm:v0.5.16-rocm720-mi35x-20260730
lmsysorg/sglang-rocm:v0.5.17-rocm720-mi35x-20260809
lmsysorg/sglang-rocm:v0.5.17-rocm720-mi35x-20260811
lmsysorg/sglang-rocm:v0.5.17-rocm720-mi35x-20260813
lmsysorg/sglang-rocm:v0.5.17-rocm720-mi35x-20260817
lmsysorg/sglang-rocm:v0.5.17-rocm720-mi35x-20260818
lmsysorg/sglang-rocm:v0.5.17-rocm720-mi35x-20260820
lmsysorg/sglang-rocm:v0.5.17-rocm720-mi35x-20260821
lmsysorg/sglang:deepseek-v4-b300@sha256:26e116bd211e300dbb76924d56c5cbe6cc3ee5ee2fe314859cb8774f5bc070f3
lmsysorg/sglang:deepseek-v4-blackwell@sha256:df18bfc4aa9ecf59451002b49ba00cae58042de9e2a96378bbd21b404dd62c7b
lmsysorg/sglang:deepseek-v4-hopper@sha256:1bf5d508ab110cc0fe1659a5f21d1be02a7f0d7ca8f58cea7e7f4e11f6ae208f
lmsysorg/sglang:deepseek-v4-hopper@sha256:7f19c6dc092e47a10fac2e41f47eab78970280d06648b8e50d312a82f0ae722f
lmsysorg/sglang:dev-nightly-0820
lmsysorg/sglang:nightly-dev-20260216-d3bae71e
lmsysorg/sglang:nightly-dev-20260402-d7256eb6
lmsysorg/sglang:nightly-dev-20260422-de962f32
lmsysorg/sglang:nightly-dev-20260527-14f81a67
lmsysorg/sglang:nightly-dev-20260818-c0b6474b
lmsysorg/sglang:nightly-dev-cu13-20260317-1eea7448
lmsysorg/sglang:nightly-dev-cu13-20260328-a27651d5
lmsysorg/sglang:nightly-dev-cu13-20260519-dbac4647
lmsysorg/sglang:nightly-dev-cu13-20260520-425dffbd
lmsysorg/sglang:nightly-dev-cu13-20260528-0abe6a85
lmsysorg/sglang:nightly-dev-cu13-20260605-7dc73766
lmsysorg/sglang:nightly-dev-cu13-20260608-303757cc
lmsysorg/sglang:nightly-dev-cu13-20260610-f332e526
lmsysorg/sglang:nightly-dev-cu13-20260624-b2c8f7a2
lmsysorg/sglang:nightly-dev-cu13-20260628-da802ddc
lmsysorg/sglang:nightly-dev-cu13-20260707-b4155233
lmsysorg/sglang:nightly-dev-cu13-20260708-b3632494
lmsysorg/sglang:nightly-dev-cu13-20260709-074bb928
lmsysorg/sglang:nightly-dev-cu13-20260710-cfc66e05
lmsysorg/sglang:nightly-dev-cu13-20260711-7de33ce8
lmsysorg/sglang:nightly-dev-cu13-20260719-99f5a6f4
lmsysorg/sglang:nightly-dev-cu13-20260720-b3570a45
lmsysorg/sglang:nightly-dev-cu13-20260721-8905cbd4
lmsysorg/sglang:nightly-dev-cu13-20260724-433429b1
lmsysorg/sglang:nightly-dev-cu13-20260802-131bd51b
lmsysorg/sglang:nightly-dev-cu13-20260805-211ee642
lmsysorg/sglang:nightly-dev-cu13-20260814-c4271c3f
lmsysorg/sglang:nightly-dev-cu13-20260815-a5ba081f
lmsysorg/sglang:nightly-dev-cu13-20260816-4a6dc267
lmsysorg/sglang:nightly-dev-cu13-20260818-c0b6474b
lmsysorg/sglang:nightly-dev-cu13-20260821-f825d729
lmsysorg/sglang:v0.5.10-rocm720-mi30x
lmsysorg/sglang:v0.5.10-rocm720-mi35x
lmsysorg/sglang:v0.5.10.post1-cu130
lmsysorg/sglang:v0.5.11-cu130
lmsysorg/sglang:v0.5.12
lmsysorg/sglang:v0.5.12-cu130
lmsysorg/sglang:v0.5.12-rocm700-mi30x
lmsysorg/sglang:v0.5.12-rocm700-mi35x
lmsysorg/sglang:v0.5.12-rocm720-mi30x
lmsysorg/sglang:v0.5.12-rocm720-mi35x
lmsysorg/sglang:v0.5.12.post1
lmsysorg/sglang:v0.5.13-cu130
lmsysorg/sglang:v0.5.13.post1-cu130
lmsysorg/sglang:v0.5.14-cu130
lmsysorg/sglang:v0.5.14-cu130@sha256:5027e95bf6ec536856b1b52a91d1f35ff5c564ab83e8a94758a169ff09bb8df3
lmsysorg/sglang:v0.5.14-rocm720-mi35x
lmsysorg/sglang:v0.5.15.post1-cu130
lmsysorg/sglang:v0.5.15.post1-rocm720-mi30x
lmsysorg/sglang:v0.5.16-cu130
lmsysorg/sglang:v0.5.16-rocm720-mi30x
lmsysorg/sglang:v0.5.16-rocm720-mi35x
lmsysorg/sglang:v0.5.17-cu130
lmsysorg/sglang:v0.5.8-cu130
lmsysorg/sglang:v0.5.8-cu130-amd64
lmsysorg/sglang:v0.5.8-cu130-runtime
lmsysorg/sglang:v0.5.8.post1-cu130
lmsysorg/sglang:v0.5.8.post1-cu130-amd64
lmsysorg/sglang:v0.5.8.post1-cu130-runtime
lmsysorg/sglang:v0.5.9-cu129-amd64
lmsysorg/sglang:v0.5.9-rocm720-mi30x
nvcr.io#nvidia/ai-dynamo/tensorrtllm-runtime:0.7.0.post2
nvcr.io#nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post2
nvcr.io#nvidia/ai-dynamo/tensorrtllm-runtime:1.1.0-dev.2
nvcr.io#nvidia/ai-dynamo/tensorrtllm-runtime:1.3.0-deepseek-v4-dev.1
nvcr.io#nvidia/ai-dynamo/tensorrtllm-runtime:1.3.0-dev.1-cuda13
nvcr.io#nvidia/tensorrt-llm/release:1.2.0rc0.post1
nvcr.io#nvidia/tensorrt-llm/release:1.2.0rc2
nvcr.io#nvidia/tensorrt-llm/release:1.3.0rc14
nvcr.io#nvidia/tensorrt-llm/release:1.3.0rc18
nvcr.io#nvidia/tensorrt-llm/release:1.3.0rc21
nvcr.io#nvidia/tensorrt-llm/release:1.3.0rc23
nvcr.io#nvidia/tensorrt-llm/release:1.3.0rc24
nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post1
nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post2
nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post3
nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:1.1.0-dev.2
nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:1.3.0-dev.1-cuda13
nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0-kimi-k3-dev.1
nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc18
nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc21
nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc22.post1
nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc23.post1
nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc24
quay.io/rh-ee-imarkov/llm-d-nokube-vllm:vllm0.26@sha256:a9095d4c835935c4070be2040de0a5ef3b44098f603092ab66d743b0e731b7b4
rocm/atom-dev:MiniMax-M3-20260619
rocm/atom-dev:MiniMax-M3-20260622
rocm/atom-dev:MiniMax-M3-20260623
rocm/atom-dev:nightly_202605101539
rocm/atom-dev:nightly_202606101403
rocm/atom-dev:nightly_202606161823
rocm/atom-dev:nightly_202607011530
rocm/atom-dev:nightly_202607201550
rocm/atom-dev:nightly_202607211523
rocm/atom-dev:nightly_202607231538
rocm/atom-dev:nightly_202608201032
rocm/atom-dev:ubuntu24.04_py3.12_pytorch_release_2.10.0_glm52_agentic_0813
rocm/atom-dev:ubuntu24.04_py3.12_pytorch_release_2.10.0_kimi_k3_agentic_0820
rocm/atom:rocm7.2.0-ubuntu24.04-pytorch2.9-atom0.1.1
rocm/atom:rocm7.2.1-ubuntu24.04-pytorch2.9.1-atom0.1.2
rocm/atom:rocm7.2.2_ubuntu24.04_py3.12_pytorch_release_2.10.0_atom0.1.2.post
rocm/atom:rocm7.2.3_ubuntu24.04_py3.12_pytorch_release_2.10.0_atom20260511
rocm/atom:rocm7.2.4_ubuntu24.04_py3.12_pytorch_release_2.10.0_atom0.1.3
rocm/atom:rocm7.2.4_ubuntu24.04_py3.12_pytorch_release_2.10.0_atom0.1.4_20260612
rocm/atom:rocm7.2.4_ubuntu24.04_py3.12_pytorch_release_2.10.0_atom0.1.4_202607091539
rocm/atom:rocm7.2.4_ubuntu24.04_py3.12_pytorch_release_2.10.0_atomesh_202607121715
rocm/infera:atom-v0.1.1
rocm/pytorch-private:hy-kk-08092026
rocm/sgl-dev:rocm720-mi35x-0363e6c-20260509-DSv4
rocm/sgl-dev:rocm720-mi35x-583b1b6-20260501-DSv4
rocm/sgl-dev:rocm720-mi35x-8c3b5aa-20260521-DSv4
rocm/sgl-dev:rocm720-mi35x-a8410de-20260502-DSv4
rocm/sgl-dev:rocm720-mi35x-b19052c-20260518-DSv4
rocm/sgl-dev:rocm720-mi35x-bfd32b6-20260507-DSv4
rocm/sgl-dev:rocm720-mi35x-da28108-20260610-DSv4
rocm/sgl-dev:rocm720-mi35x-f96ac98-20260526-DSv4
rocm/sgl-dev:sglang-0.5.8-rocm700-mi35x-mori-0210
rocm/sgl-dev:sglang-0.5.9-rocm720-mi35x-mori-0227-2
rocm/sgl-dev:v0.5.10rc0-rocm720-mi35x-20260413
rocm/sgl-dev:v0.5.12.post1-rocm720-mi35x-20260610
rocm/sgl-dev:v0.5.8.post1-rocm720-mi35x-20260215
rocm/sgl-dev:v0.5.8.post1-rocm720-mi35x-20260218
rocm/sgl-dev:v0.5.8.post1-rocm720-mi35x-20260219
rocm/vllm-dev:vllm-0.23.1-rocm723-mi35x-mori-0625
semianalysisai/trtllm-deepseek-v4:feat-deepseek_v4-c185066
vllm/vllm-openai-rocm:nightly-04c2a8deac44fdb1ca3e2b5ec3e6bf16f3f6a914
vllm/vllm-openai-rocm:nightly-09663abde0f50944a8d5ea30120666024b503faa
vllm/vllm-openai-rocm:nightly-0ba2aa35a81dcc3246b26291368b53fa2389c7d7
vllm/vllm-openai-rocm:nightly-124154a8843d1f8e4d4e2d5d466e2d3ebc3716da
vllm/vllm-openai-rocm:nightly-2afa3f7e950264bb179d030c23a1ed1f46558fd9
vllm/vllm-openai-rocm:nightly-2dfaae752b4db0d43cfc0715c780e33be030d0f1
vllm/vllm-openai-rocm:nightly-311b3513af33bc29b4acb2fde2e9313e5e9966a0
vllm/vllm-openai-rocm:nightly-34b560b725b401f33477464163244b4744d1c40f
vllm/vllm-openai-rocm:nightly-387189c42997b27e2c04b5d97ef8190ffa2bf909
vllm/vllm-openai-rocm:nightly-3f5a1e1733200760169ff31ebe60a271072b199e
vllm/vllm-openai-rocm:nightly-4559c43a9526597c00cbcc4f59979496500268d1
vllm/vllm-openai-rocm:nightly-49f31d7cee425a6d38f8c5bc76877986daf832ed
vllm/vllm-openai-rocm:nightly-556bc4e3a089378e9df2482659898192da18db15
vllm/vllm-openai-rocm:nightly-5a4c8d99242e9e069b604d0e9b969e77f7dd501d
vllm/vllm-openai-rocm:nightly-5e35a6f4f9bbc217c599692157ca985c894373f7
vllm/vllm-openai-rocm:nightly-67fe73b2b47e2927af1e5ec6fb91e16e3b075940
vllm/vllm-openai-rocm:nightly-69715823df89b11ee684b84066390cbb9092d5c1
vllm/vllm-openai-rocm:nightly-821717118fc26667dd474b9b0ab81d29259dfc5c
vllm/vllm-openai-rocm:nightly-94c0ef300180f8fd1071d9cbe7270a8348155f94
vllm/vllm-openai-rocm:nightly-9e57de7197f234f9d9187715d96e07e007048c0f
vllm/vllm-openai-rocm:nightly-ac7509e2b1db40fec2f03dde1ed4e9dfdc2338c9
vllm/vllm-openai-rocm:nightly-b53b1c7ffe7aebdafd0876350f30e51d1226c92a
vllm/vllm-openai-rocm:nightly-b8336c3c7c298e0878f22a7bf70f4e295b2f4e01
vllm/vllm-openai-rocm:nightly-b88916617d3d2249bff0dae5cecb6b727c980a20
vllm/vllm-openai-rocm:nightly-bf610c2f56764e1b30bc6065f4ceace3d6e59036
vllm/vllm-openai-rocm:nightly-cb8104839c141609d99f1254459ef3a4f1bd4263
vllm/vllm-openai-rocm:nightly-dcfebf93f4eccf30f71872283331eee757915daf
vllm/vllm-openai-rocm:nightly-dd72658e7db0c6a674f473f6f9f0f5c2ebe7e523
vllm/vllm-openai-rocm:nightly-f25953cc59f9b4ba9b04b16228d2b86dcfbcbdb1
vllm/vllm-openai-rocm:nightly-f329ce405b12623fb8b1cf1830f12e5a712523be
vllm/vllm-openai-rocm:nightly-f8d03e77416bf90c49acbe50e233275722f02c4b
vllm/vllm-openai-rocm:v0.14.0
vllm/vllm-openai-rocm:v0.15.1
vllm/vllm-openai-rocm:v0.16.0
vllm/vllm-openai-rocm:v0.17.0
vllm/vllm-openai-rocm:v0.18.0
vllm/vllm-openai-rocm:v0.19.1
vllm/vllm-openai-rocm:v0.20.2
vllm/vllm-openai-rocm:v0.21.0
vllm/vllm-openai-rocm:v0.22.0
vllm/vllm-openai-rocm:v0.24.0
vllm/vllm-openai-rocm:v0.25.1
vllm/vllm-openai-rocm:v0.26.0
vllm/vllm-openai-rocm:v0.27.0
vllm/vllm-openai-rocm:v0.27.1
vllm/vllm-openai:cu129-nightly-8e981630c9336233ca9de91452f68918bddbc4e2
vllm/vllm-openai:dsv4-megamoe-mxfp4-arm64-cu130-4ba0a72
vllm/vllm-openai:minimax-m3-0618-x86_64-cu130
vllm/vllm-openai:minimax-m3-perf-arm64-13.0.1-7a67223
vllm/vllm-openai:nightly-04c2a8deac44fdb1ca3e2b5ec3e6bf16f3f6a914
vllm/vllm-openai:nightly-09663abde0f50944a8d5ea30120666024b503faa
vllm/vllm-openai:nightly-2afa3f7e950264bb179d030c23a1ed1f46558fd9
vllm/vllm-openai:nightly-2dfaae752b4db0d43cfc0715c780e33be030d0f1
vllm/vllm-openai:nightly-387189c42997b27e2c04b5d97ef8190ffa2bf909
vllm/vllm-openai:nightly-3d99b0499aff7ce3b91942b0385558dab4eecf76
vllm/vllm-openai:nightly-3ee2df30337a301164c46ae444b76ee67e71c106
vllm/vllm-openai:nightly-3f0a91bb96f8d72e0498b95c166e817deae14d62
vllm/vllm-openai:nightly-4080263bb2c5d10deac17aaeb88e0823bc35bca9
vllm/vllm-openai:nightly-5e35a6f4f9bbc217c599692157ca985c894373f7
vllm/vllm-openai:nightly-69715823df89b11ee684b84066390cbb9092d5c1
vllm/vllm-openai:nightly-6f91edf96d3f3272945809c04702380053bff4de
vllm/vllm-openai:nightly-821717118fc26667dd474b9b0ab81d29259dfc5c
vllm/vllm-openai:nightly-8e981630c9336233ca9de91452f68918bddbc4e2
vllm/vllm-openai:nightly-93d8f834dd8acf33eb0e2a75b2711b628cb6e226
vllm/vllm-openai:nightly-94c0ef300180f8fd1071d9cbe7270a8348155f94
vllm/vllm-openai:nightly-95ed0feaa5cd7fb16d72c53ce04950aaf07c4698
vllm/vllm-openai:nightly-ac7509e2b1db40fec2f03dde1ed4e9dfdc2338c9
vllm/vllm-openai:nightly-b22afe45ac797ae58e67a7a3ad79ee5714024420@sha256:144356af876edbb3a4bfee23e1444b196cc3fdadd0a0c1a7f11f721756972a21
vllm/vllm-openai:nightly-cbe9c40f998f13975b967773ac7e7920e115387f
vllm/vllm-openai:nightly-dev-arm64-cu13.0.1-426e59f
vllm/vllm-openai:nightly-dev-arm64-cu13.0.1-728d3ad
vllm/vllm-openai:nightly-dev-arm64-cu13.0.1-75c2eef
vllm/vllm-openai:nightly-dev-arm64-cu13.0.1-c188b96
vllm/vllm-openai:nightly-dev-arm64-cu13.0.1-d62ad46
vllm/vllm-openai:nightly-dev-x86_64-cu13-5ee73d9
vllm/vllm-openai:nightly-dev-x86_64-cu13.0.1-426e59f
vllm/vllm-openai:nightly-dev-x86_64-cu13.0.1-5894fdf
vllm/vllm-openai:nightly-dev-x86_64-cu13.0.1-728d3ad
vllm/vllm-openai:nightly-dev-x86_64-cu13.0.1-904e4ec
vllm/vllm-openai:nightly-dev-x86_64-cu13.0.1-d62ad46
vllm/vllm-openai:nightly-e2fa28594f7baad142a426b0b6a2cfe2c79201c7
vllm/vllm-openai:v0.15.1
vllm/vllm-openai:v0.16.0
vllm/vllm-openai:v0.17.0
vllm/vllm-openai:v0.18.0-cu130
vllm/vllm-openai:v0.19.0-cu130
vllm/vllm-openai:v0.20.0-cu130
vllm/vllm-openai:v0.20.0-ubuntu2404
vllm/vllm-openai:v0.20.1
vllm/vllm-openai:v0.20.1-ubuntu2404
vllm/vllm-openai:v0.20.2
vllm/vllm-openai:v0.21.0
vllm/vllm-openai:v0.21.0-ubuntu2404
vllm/vllm-openai:v0.22.0
vllm/vllm-openai:v0.23.0
vllm/vllm-openai:v0.24.0
vllm/vllm-openai:v0.25.0
vllm/vllm-openai:v0.25.1
vllm/vllm-openai:v0.26.0
vllm/vllm-openai:v0.27.1
vllm/vllm-openai:vllm-minimax-m3-perf-x86_64-13.0.1-8b00f41
vllm/vllm-openai:vllm-minimax-m3-perf-x86_64-13.0.1-8b00f41@sha256:6af4be7ae69a5f424de85b3d514ac79778bdcf4a9d05f93ec908a4095e0f1253
vllm/vllm-openai:vllm-x86_64-cu13-0.25.1-7a33ba9
vllm/vllm-router:nightly-20260716-1fbcde7
voipmonitor/vllm:gilded-gnosis-v20-vllm5517197-sibe0edca-fi801d57a-cu132-20260725@sha256:e7a8a8549c10b5d16899e0fb45ff7eeca09dd7c1d1a83eee13fb03930d8eb80a
yukiozzz/vllm-openai-rocm:k3-dspark-dcp-v3-mooncake-ac7509-20260822
""".split()

# Every image of the corpus whose tag carries none of them: rolling builds named after a model, a feature, a
# GPU, a pull request or a toolchain, which their owners push again as the work moves.
REAL_MOVING = """
haihub007/hc-gpu:kimik3-dspark-lmcache-fix2
hyukjleeamd/kimi-k3-mla-b128:fp8-kv-fixed
lmsysorg/sglang-staging:deepseek-v4-grace-blackwell-dev
lmsysorg/sglang-staging:dev-cu13-pr-35880
lmsysorg/sglang:deepseek-v4-b300
lmsysorg/sglang:deepseek-v4-blackwell
lmsysorg/sglang:deepseek-v4-grace-blackwell
lmsysorg/sglang:deepseek-v4-hopper
lmsysorg/sglang:glm5-hopper
rocm/atom:rocm7.2.2
rocm/pytorch-private:sglang-rocm720-mi35x_dsv4_mlpnopad
rocm/sgl-dev:deepseek-v4-mi35x
vllm/vllm-openai-rocm:kimi-k3
vllm/vllm-openai-rocm:minimax-m3
vllm/vllm-openai-rocm:nightly
vllm/vllm-openai:deepseekv4-cu129
vllm/vllm-openai:deepseekv4-cu130
vllm/vllm-openai:kimi-k3
vllm/vllm-openai:minimax-m3
vllm/vllm-openai:nightly
vllm/vllm-openai:nightly-aarch64
yukiozzz/kimi-lmc-mc-rocm:dmabuf
""".split()


def test_the_lists_are_the_corpus_s_images_each_once():
    assert len(REAL_PINNED) == 282 and len(REAL_MOVING) == 22
    assert len(set(REAL_PINNED) | set(REAL_MOVING)) == 304


@pytest.mark.parametrize("image", REAL_PINNED)
def test_no_real_pinned_image_reads_as_moving(image):
    assert reuse.moving_image(image) is None


@pytest.mark.parametrize("image", REAL_MOVING)
def test_every_real_rolling_build_reads_as_moving_and_its_reason_names_the_tag(image):
    why = reuse.moving_image(image)
    tag = image.rsplit("/", 1)[-1].split(":", 1)[1]
    assert why == f"its tag {tag!r} names no version, date or commit, so it can be pushed again", why


@pytest.mark.parametrize("image", [
    "lmsysorg/sglang:v0.11.0", "lmsysorg/sglang:0.5.8", "nvcr.io/nvidia/pytorch:25.10-py3", "img:20251101",
    "img:2025-11-01", "img:build-2025-11-01-x86", "img:feature-0abc123", "img:0ABC123DEF",
    "nvcr.io#nvidia/tensorrt-llm/release:1.2.0rc2", "img:kimi-k3@sha256:" + "0f" * 32,
])
def test_the_brief_s_shapes_of_a_pin(image):
    assert reuse.moving_image(image) is None


@pytest.mark.parametrize("image", [
    # a number that is no version, date or commit: a model's or a GPU's, a PR's, a toolchain's
    "lmsysorg/sglang:kimi-k3", "vllm/vllm-openai:deepseek-v4", "rocm/sgl-dev:dsv4-preview", "img:qwen3-235b-a22b",
    "img:pr-35880", "img:v2", "img:latest-cu130", "img:nightly-cu13.0.1", "img:ubuntu24.04-py3.12", "img:rocm7.2.2",
    "img:1399", "img:cafebabe",
])
def test_a_number_that_pins_nothing_leaves_the_tag_moving(image):
    assert reuse.moving_image(image) is not None


def test_a_row_whose_image_is_a_model_named_build_is_not_reused_and_its_line_names_the_tag(make_repo, tmp_path):
    proc = reused_at_merge_with(make_repo, tmp_path, "vllm/vllm-openai:kimi-k3")[0]
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1].startswith("reused 2 of 5 jobs"), proc.stdout
    assert sorted((r["framework"], r["conc"]) for r in remaining_rows(tmp_path)) == [
        ("vllm", 4), ("vllm", 8), ("vllm", 16)]
    said = [line for line in proc.stderr.splitlines() if "moving tag" in line]
    assert said == [f"sweepgate ci reuse: single_node/1k1k dsr1_1k1k conc {conc} (b300): not reused, image "
                    "vllm/vllm-openai:kimi-k3 is a moving tag: its tag 'kimi-k3' names no version, date or commit, "
                    "so it can be pushed again; pin it by a version, date or commit in the tag, or by @sha256: "
                    "digest, to reuse its results" for conc in (4, 8, 16)], proc.stderr
