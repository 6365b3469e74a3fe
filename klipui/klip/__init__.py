"""klip"""
