"""A stream's thumbnail: decoded safely from hostile bytes (decode.py), watched for a frozen or black
picture (watch.py)."""
