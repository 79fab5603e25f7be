"""keras-bert's BERT-base, with the arguments of the StackExchange question on its attention layers.

Needs TensorFlow with tf-keras and the keras-bert package (not part of this
project's requirements): pip install tensorflow-cpu tf-keras keras-bert
"""
import os

os.environ.setdefault("TF_KERAS", "1")  # keras-bert on tf.keras
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.keras is Keras 2 (tf-keras)

from keras_bert import get_model  # noqa: E402

model = get_model(
    token_num=30000,
    head_num=12,
    transformer_num=12,
    embed_dim=768,
    feed_forward_dim=3072,
    seq_len=500,
    pos_num=512,
    dropout_rate=0.05,
)
model.summary()

attention = model.get_layer("Encoder-1-MultiHeadSelfAttention")
print(f"{attention.name}: {attention.count_params():,}")
print(f"Total: {model.count_params():,}")
