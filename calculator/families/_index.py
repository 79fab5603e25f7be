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
    ("esmc", "esmc", 61, (
        "biohub/ESMC-300M",
        "biohub/ESMC-600M",
        "biohub/ESMC-6B",
    )),
    ("eurobert", "eurobert", 58, (
        "EuroBERT/EuroBERT-210m",
    )),
    ("flaubert", "flaubert", 73, (
        "flaubert/flaubert_base_cased",
        "flaubert/flaubert_base_uncased",
        "flaubert/flaubert_small_cased",
        "flaubert/flaubert_large_cased",
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
    ("gte", "gte", 59, (
        "alibaba-nlp-community/gte-multilingual-base",
        "Alibaba-NLP/gte-base-en-v1.5",
    )),
    ("ibert", "ibert", 73, (
        "kssteven/ibert-roberta-base",
        "kssteven/ibert-roberta-large",
    )),
    ("jina_embeddings_v3", "jina_embeddings_v3", 23, (
        "jinaai/jina-embeddings-v3-hf",
    )),
    ("keras_bert", "keras-bert", 90, (
    )),
    ("layoutlm", "layoutlm", 70, (
        "microsoft/layoutlm-base-uncased",
        "microsoft/layoutlm-large-uncased",
    )),
    ("longformer", "longformer", 25, (
        "allenai/longformer-base-4096",
    )),
    ("luke", "luke", 74, (
        "studio-ousia/luke-base",
        "studio-ousia/luke-large",
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
    ("modernvbert", "modernvbert", 73, (
    )),
    ("mpnet", "mpnet", 70, (
        "sentence-transformers/all-mpnet-base-v2",
        "microsoft/mpnet-base",
    )),
    ("mra", "mra", 85, (
        "uw-madison/mra-base-512-4",
    )),
    ("mt5", "mt5", 86, (
        "google/mt5-xxl",
        "google/mt5-xl",
        "google/mt5-base",
    )),
    ("neomme", "neomme", 72, (
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
    ("roberta_prelayernorm", "roberta-prelayernorm", 71, (
        "andreasmadsen/efficient_mlm_m0.40",
    )),
    ("roc_bert", "roc_bert", 72, (
        "roc-bert-config-defaults",
    )),
    ("roformer", "roformer", 58, (
        "junnyu/roformer_chinese_base",
        "junnyu/roformer_chinese_small",
        "junnyu/roformer_chinese_char_base",
    )),
    ("squeezebert", "squeezebert", 64, (
        "squeezebert/squeezebert-uncased",
    )),
    ("t5", "t5", 85, (
        "google/t5-v1_1-xxl",
        "google/t5-v1_1-xl",
        "google/flan-t5-xl",
        "google/flan-t5-base",
        "google-t5/t5-base",
        "google-t5/t5-large",
    )),
    ("tapas", "tapas", 71, (
    )),
    ("transformer2018", "transformer", 95, (
    )),
    ("ultrabert", "ultrabert", 62, (
    )),
    ("ultravbert", "ultravbert", 74, (
    )),
    ("umt5", "umt5", 87, (
        "google/umt5-xxl",
        "google/umt5-base",
    )),
    ("xlm", "xlm", 72, (
        "FacebookAI/xlm-mlm-en-2048",
        "FacebookAI/xlm-mlm-enfr-1024",
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
