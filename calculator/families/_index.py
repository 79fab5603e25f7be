"""Each family file's model_type, rank and preset names, so the registry lists them without importing them.

Written by :func:`calculator.families.write_index`; tests/unit/test_families_index.py checks it.
"""
INDEX: tuple[tuple[str, str, int, tuple[str, ...]], ...] = (
    ("albert", "albert", 40, (
        "albert-base-v2",
        "albert-large-v2",
        "albert-xlarge-v2",
        "albert-xxlarge-v2",
    )),
    ("bert", "bert", 10, (
        "bert-base-uncased",
        "bert-base-cased",
        "bert-large-uncased",
        "bert-large-cased",
        "bert-base-chinese",
        "bert-base-multilingual-cased",
        "bert-base-multilingual-uncased",
        "hfl/chinese-roberta-wwm-ext",
        "hfl/chinese-roberta-wwm-ext-large",
        "hfl/chinese-macbert-base",
        "hfl/chinese-macbert-large",
        "hfl/chinese-bert-wwm-ext",
        "hfl/rbt3",
        "google/bert_uncased_L-2_H-128_A-2",
        "google/bert_uncased_L-4_H-256_A-4",
        "google/bert_uncased_L-4_H-512_A-8",
        "google/bert_uncased_L-8_H-512_A-8",
    )),
    ("big_bird", "big_bird", 26, (
        "google/bigbird-roberta-base",
    )),
    ("camembert", "camembert", 24, (
        "camembert-base",
    )),
    ("convbert", "convbert", 66, (
        "YituTech/conv-bert-base",
        "YituTech/conv-bert-small",
    )),
    ("data2vec_text", "data2vec-text", 26, (
        "facebook/data2vec-text-base",
    )),
    ("deberta", "deberta", 52, (
        "microsoft/deberta-base",
    )),
    ("deberta_v2", "deberta-v2", 54, (
        "microsoft/deberta-v3-base",
        "microsoft/deberta-v3-large",
        "microsoft/mdeberta-v3-base",
    )),
    ("distilbert", "distilbert", 30, (
        "distilbert-base-uncased",
        "distilbert-base-cased",
        "distilbert-base-multilingual-cased",
    )),
    ("electra", "electra", 50, (
        "google/electra-small-discriminator",
        "google/electra-base-discriminator",
        "google/electra-large-discriminator",
        "google/electra-small-generator",
    )),
    ("ernie", "ernie", 60, (
        "nghuyong/ernie-1.0-base-zh",
        "nghuyong/ernie-3.0-base-zh",
    )),
    ("esm", "esm", 80, (
        "facebook/esm2_t6_8M_UR50D",
        "facebook/esm2_t12_35M_UR50D",
        "facebook/esm2_t30_150M_UR50D",
        "facebook/esm2_t33_650M_UR50D",
        "facebook/esm2_t36_3B_UR50D",
    )),
    ("fnet", "fnet", 83, (
        "google/fnet-base",
        "google/fnet-large",
    )),
    ("funnel", "funnel", 68, (
        "funnel-transformer/small",
        "funnel-transformer/medium",
        "funnel-transformer/intermediate",
        "funnel-transformer/intermediate-base",
        "funnel-transformer/large",
        "funnel-transformer/xlarge",
    )),
    ("keras_bert", "keras-bert", 90, (
    )),
    ("longformer", "longformer", 25, (
        "allenai/longformer-base-4096",
    )),
    ("megatron_bert", "megatron-bert", 60, (
        "UFNLP/gatortron-base",
        "UFNLP/gatortron-medium",
        "IDEA-CCNL/Erlangshen-MegatronBert-1.3B",
    )),
    ("mobilebert", "mobilebert", 45, (
        "google/mobilebert-uncased",
    )),
    ("modernbert", "modernbert", 56, (
        "answerdotai/ModernBERT-base",
        "answerdotai/ModernBERT-large",
    )),
    ("mpnet", "mpnet", 70, (
        "sentence-transformers/all-mpnet-base-v2",
        "microsoft/mpnet-base",
    )),
    ("mra", "mra", 85, (
        "uw-madison/mra-base-512-4",
    )),
    ("nomic_bert", "nomic_bert", 57, (
        "nomic-ai/nomic-embed-text-v1.5",
        "nomic-ai/nomic-embed-text-v1",
    )),
    ("nystromformer", "nystromformer", 82, (
        "uw-madison/nystromformer-512",
    )),
    ("perceiver", "perceiver", 86, (
        "deepmind/language-perceiver",
    )),
    ("reformer", "reformer", 87, (
        "google/reformer-crime-and-punishment",
        "google/reformer-enwik8",
    )),
    ("rembert", "rembert", 62, (
        "google/rembert",
    )),
    ("roberta", "roberta", 20, (
        "roberta-base",
        "roberta-large",
    )),
    ("roformer", "roformer", 58, (
        "junnyu/roformer_chinese_base",
        "junnyu/roformer_chinese_small",
        "junnyu/roformer_chinese_char_base",
    )),
    ("squeezebert", "squeezebert", 64, (
        "squeezebert/squeezebert-uncased",
    )),
    ("transformer2018", "transformer", 95, (
    )),
    ("xlm_roberta", "xlm-roberta", 22, (
        "xlm-roberta-base",
        "xlm-roberta-large",
        "BAAI/bge-m3",
    )),
    ("xlm_roberta_xl", "xlm-roberta-xl", 23, (
        "facebook/xlm-roberta-xl",
        "facebook/xlm-roberta-xxl",
    )),
    ("xmod", "xmod", 28, (
        "facebook/xmod-base",
    )),
    ("yoso", "yoso", 84, (
        "uw-madison/yoso-4096",
    )),
)
